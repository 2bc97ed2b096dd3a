package git

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestUpdateHead(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string)
		wantRef  string // where the new hash must show up
		detached bool
	}{
		{name: "attached", setup: func(*testing.T, string) {}, wantRef: "refs/heads/main"},
		{name: "detached", setup: func(t *testing.T, dir string) {
			run(t, dir, "checkout", "-q", "--detach")
		}, wantRef: "HEAD", detached: true},
		{name: "packed-refs only", setup: func(t *testing.T, dir string) {
			run(t, dir, "pack-refs", "--all")
			if _, err := os.Stat(filepath.Join(dir, ".git/refs/heads/main")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("main still loose after pack-refs: %v", err)
			}
		}, wantRef: "refs/heads/main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			tt.setup(t, dir)
			r := openRepo(t, dir)
			old := revParse(t, dir, "HEAD")
			next := commitFiles(t, r, old, map[string]string{"README.md": "next\n"}, "promote web to v2")

			if err := r.updateHead(next, old); !errors.Is(err, ErrRefMoved) {
				t.Errorf("UpdateHead with wrong old: err = %v, want ErrRefMoved", err)
			}
			if err := r.updateHead(old, next); err != nil {
				t.Fatalf("UpdateHead: %v", err)
			}
			if got := revParse(t, dir, tt.wantRef); got != next {
				t.Errorf("%s = %s, want %s", tt.wantRef, got, next)
			}
			headFile, err := os.ReadFile(filepath.Join(dir, ".git/HEAD"))
			if err != nil {
				t.Fatal(err)
			}
			if attached := strings.HasPrefix(string(headFile), "ref: "); attached == tt.detached {
				t.Errorf("HEAD attachment changed: .git/HEAD = %q", headFile)
			}
			if err := r.updateHead(old, next); !errors.Is(err, ErrRefMoved) {
				t.Errorf("second UpdateHead from old: err = %v, want ErrRefMoved", err)
			}
			locks, _ := filepath.Glob(filepath.Join(dir, ".git", "*.lock"))
			more, _ := filepath.Glob(filepath.Join(dir, ".git/refs/heads/*.lock"))
			if len(locks)+len(more) > 0 {
				t.Errorf("lock files left behind: %v %v", locks, more)
			}
			if got := run(t, dir, "reflog", "-1", "--format=%gs", "HEAD"); got != "commit: promote web to v2" {
				t.Errorf("HEAD reflog = %q", got)
			}
			run(t, dir, "fsck", "--strict", "--no-dangling")
		})
	}
}

func TestUpdateHeadLocked(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	old := revParse(t, dir, "HEAD")
	next := commitFiles(t, r, old, map[string]string{"README.md": "next\n"}, "x")
	lock := filepath.Join(dir, ".git/refs/heads/main.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := r.updateHead(old, next)
	if err == nil || !strings.Contains(err.Error(), "main.lock") {
		t.Errorf("UpdateHead with held lock: err = %v", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("someone else's lock was removed: %v", err)
	}
	if got := revParse(t, dir, "HEAD"); got != old {
		t.Errorf("HEAD moved to %s", got)
	}
}

func TestUpdateHeadUnborn(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	r := openRepo(t, dir)
	h := commitFiles(t, r, plumbing.ZeroHash, map[string]string{"a": "a\n"}, "root")
	if err := r.updateHead(plumbing.ZeroHash, h); err != nil {
		t.Fatalf("UpdateHead on unborn branch: %v", err)
	}
	if got := revParse(t, dir, "main"); got != h {
		t.Errorf("main = %s, want %s", got, h)
	}
}
