package argo

import (
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"
)

// TestGlobDirsRealDirsOnly: a git directory generator's pattern matches
// directories only, neither files nor symlinks to directories nor hidden
// ones, in every parent (each parent is read once for all its matches).
func TestGlobDirsRealDirsOnly(t *testing.T) {
	fsys := fstest.MapFS{
		"envs/a/nodes/n1/v.yaml": {},
		"envs/a/nodes/n2/v.yaml": {},
		"envs/a/nodes/file":      {Data: []byte("x")},
		"envs/a/nodes/link":      {Data: []byte("n1"), Mode: fs.ModeSymlink},
		"envs/a/nodes/.hidden/x": {},
		"envs/b/nodes/n3/v.yaml": {},
		"envs/b/nodes/link2":     {Data: []byte("n3"), Mode: fs.ModeSymlink},
	}
	got, err := globDirs(fsys, "envs/*/nodes/*/")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"envs/a/nodes/n1", "envs/a/nodes/n2", "envs/b/nodes/n3"}
	if !slices.Equal(got, want) {
		t.Fatalf("globDirs = %q, want %q", got, want)
	}
}
