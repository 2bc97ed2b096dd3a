package git

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestReadFile(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	head := revParse(t, dir, "HEAD")
	tests := []struct {
		path    string
		want    string
		wantErr error
	}{
		{path: "apps/web/values.yaml", want: fixture["apps/web/values.yaml"]},
		{path: "README.md", want: fixture["README.md"]},
		{path: "apps/web/missing.yaml", wantErr: fs.ErrNotExist},
		{path: "nope/values.yaml", wantErr: fs.ErrNotExist},
		{path: "README.md/x", wantErr: fs.ErrNotExist},
		{path: "/apps/web/values.yaml", wantErr: fs.ErrInvalid},
	}
	for _, tt := range tests {
		got, err := r.ReadFile(head, tt.path)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("ReadFile(%s) error = %v, want %v", tt.path, err, tt.wantErr)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

func TestTreeFS(t *testing.T) {
	dir := newRepo(t)
	commitSymlinks(t, dir, map[string]string{"apps/link.yaml": "web/values.yaml", "envs/webdir": "../apps/web"})
	r := openRepo(t, dir)
	tfs, err := r.TreeFS(revParse(t, dir, "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	// fstest.TestFS checks Open, ReadDir, Stat, ReadFile, Glob and
	// ReadLink against each other and the fs.FS contract. It needs every
	// symlink to resolve, hence the escaping one comes in a later commit.
	if err := fstest.TestFS(tfs, "apps/web/values.yaml", "scripts/deploy.sh", "envs/prod/apps/web/values-ext.yaml", "apps/link.yaml"); err != nil {
		t.Fatal(err)
	}

	if err := os.Symlink("../../outside", filepath.Join(dir, "envs/escape")); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "escaping link")
	if tfs, err = r.TreeFS(revParse(t, dir, "HEAD")); err != nil {
		t.Fatal(err)
	}

	var walked []string
	err = fs.WalkDir(tfs, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			walked = append(walked, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md", "apps/api/values.yaml", "apps/link.yaml", "apps/web/Chart.yaml", "apps/web/values.yaml",
		"envs/escape", "envs/prod/apps/web/values-ext.yaml", "envs/prod/apps/web/values.yaml", "envs/webdir",
		"scripts/deploy.sh",
	}
	if diff := cmp.Diff(want, walked); diff != "" {
		t.Errorf("WalkDir (-want +got):\n%s", diff)
	}

	globbed, err := fs.Glob(tfs, "*/*/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"apps/api/values.yaml", "apps/web/values.yaml", "envs/webdir/values.yaml"}, globbed); diff != "" {
		t.Errorf("Glob (-want +got):\n%s", diff)
	}

	for _, p := range []string{"apps/link.yaml", "envs/webdir/values.yaml"} {
		b, err := fs.ReadFile(tfs, p)
		if err != nil || string(b) != fixture["apps/web/values.yaml"] {
			t.Errorf("ReadFile(%s) through symlink = %q, %v", p, b, err)
		}
	}
	if _, err := fs.ReadFile(tfs, "envs/escape"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("symlink out of the tree: err = %v, want ErrNotExist", err)
	}

	fi, err := fs.Stat(tfs, "scripts/deploy.sh")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o755 || fi.Size() != int64(len("#!/bin/sh\necho deploy\n")) {
		t.Errorf("Stat(deploy.sh) mode %v size %d", fi.Mode(), fi.Size())
	}
	if fi, err := fs.Lstat(tfs, "apps/link.yaml"); err != nil || fi.Mode().Type() != fs.ModeSymlink {
		t.Errorf("Lstat(link) = %v, %v", fi, err)
	}
	if _, err := fs.ReadFile(tfs, "apps"); err == nil {
		t.Error("ReadFile(dir) succeeded")
	}
}

// TestTreeFSReadFileReturnsACopy: blobs are cached per tree view, and
// fs.ReadFileFS lets callers modify what ReadFile returns: a caller that
// does must not change what the next reader (or Stat, or Open) sees.
func TestTreeFSReadFileReturnsACopy(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	tfs, err := r.TreeFS(revParse(t, dir, "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	const p = "apps/web/values.yaml"
	want := fixture[p]
	if fi, err := fs.Stat(tfs, p); err != nil || fi.Size() != int64(len(want)) {
		t.Fatalf("Stat = %v, %v", fi, err)
	}
	first, err := fs.ReadFile(tfs, p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		first[i] = 'x'
	}
	again, err := fs.ReadFile(tfs, p)
	if err != nil || string(again) != want {
		t.Errorf("second ReadFile = %q, %v; want %q", again, err, want)
	}
	f, err := tfs.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); err != nil || string(b) != want {
		t.Errorf("Open + ReadAll = %q, %v; want %q", b, err, want)
	}
}

// Sizes and contents read through a tree view equal git's, for loose
// objects (go-git reads them), whole objects in a pack and deltas (the
// pack reader), whether Stat or the read comes first.
func TestTreeFSStatSizeWithoutReading(t *testing.T) {
	dir := newRepo(t)
	var big strings.Builder
	for i := range 400 {
		fmt.Fprintf(&big, "replica-%03d: {image: registry.example.com/app, tag: v1.%d.0}\n", i, i)
	}
	writeFile(t, dir, "envs/prod/big.yaml", big.String(), 0o644)
	writeFile(t, dir, "envs/qa/big.yaml", strings.Replace(big.String(), "replica-200", "replica-2x0", 1)+"extra: true\n", 0o644)
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "big files")
	run(t, dir, "gc", "-q", "--aggressive")
	if out := run(t, dir, "verify-pack", "-v", packIndex(t, dir)); !strings.Contains(out, " blob ") || !regexp.MustCompile(`(?m) blob +\d+ \d+ \d+ 1 `).MatchString(out) {
		t.Fatalf("the pack has no deltified blob:\n%s", out)
	}
	writeFile(t, dir, "loose.txt", "a loose object\n", 0o644)
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "loose")
	for _, readFirst := range []bool{false, true} {
		r := openRepo(t, dir)
		tfs, err := r.TreeFS(revParse(t, dir, "HEAD"))
		if err != nil {
			t.Fatal(err)
		}
		err = fs.WalkDir(tfs, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
				return err
			}
			var data []byte
			if readFirst {
				data, err = fs.ReadFile(tfs, p)
			}
			fi, serr := fs.Stat(tfs, p)
			if !readFirst {
				data, err = fs.ReadFile(tfs, p)
			}
			if err != nil || serr != nil {
				return fmt.Errorf("%s: %v, %v", p, err, serr)
			}
			if fi.Size() != int64(len(data)) {
				t.Errorf("%s (read first: %v): Stat size %d, content %d bytes", p, readFirst, fi.Size(), len(data))
			}
			if want := run(t, dir, "show", "HEAD:"+p); strings.TrimSuffix(string(data), "\n") != want {
				t.Errorf("%s differs from git show", p) // through the pack reader or go-git
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
}

// packIndex is the repository's one pack index.
func packIndex(t *testing.T, dir string) string {
	t.Helper()
	idx, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if err != nil || len(idx) != 1 {
		t.Fatalf("pack indexes: %v, %v", idx, err)
	}
	return idx[0]
}
