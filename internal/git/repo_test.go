package git

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
)

func TestOpen(t *testing.T) {
	dir := newRepo(t)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{".", "apps", "apps/web"} {
		r := openRepo(t, filepath.Join(dir, sub))
		if got, _ := filepath.EvalSymlinks(r.Root()); got != real {
			t.Errorf("Open(%s).Root() = %s, want %s", sub, got, real)
		}
	}
	if _, err := Open(t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Open(non-repo) error = %v, want ErrNotRepo", err)
	}
}

func TestOpenLinkedWorktree(t *testing.T) {
	dir := newRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	r := openRepo(t, wt)
	head, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	if head.Branch != "feature" {
		t.Errorf("Head().Branch = %q, want feature", head.Branch)
	}
	h := commitFiles(t, r, head.Hash, map[string]string{"README.md": "wt\n"}, "in worktree")
	if err := r.updateHead(head.Hash, h); err != nil {
		t.Fatalf("UpdateHead: %v", err)
	}
	if got := revParse(t, dir, "feature"); got != h {
		t.Errorf("feature = %s, want %s", got, h)
	}
	if got := revParse(t, dir, "main"); got != head.Hash {
		t.Errorf("main moved to %s", got)
	}
}

func TestHead(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	tip := revParse(t, dir, "HEAD")
	got, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Head{Hash: tip, Branch: "main"}, got); diff != "" {
		t.Errorf("attached Head() (-want +got):\n%s", diff)
	}
	run(t, dir, "checkout", "-q", "--detach")
	got, err = r.Head()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Head{Hash: tip}, got); diff != "" {
		t.Errorf("detached Head() (-want +got):\n%s", diff)
	}
}

func TestResolve(t *testing.T) {
	dir := newRepo(t)
	first := revParse(t, dir, "HEAD")
	writeFile(t, dir, "README.md", "second\n", 0o644)
	run(t, dir, "commit", "-q", "-am", "second")
	second := revParse(t, dir, "HEAD")
	run(t, dir, "tag", "v1", first.String())
	run(t, dir, "tag", "-a", "-m", "annotated", "v2", second.String())
	run(t, dir, "update-ref", "refs/remotes/origin/main", first.String())
	r := openRepo(t, dir)
	tests := []struct {
		rev  string
		want plumbing.Hash
	}{
		{"HEAD", second},
		{"HEAD~1", first},
		{"main", second},
		{"v1", first},
		{"v2", second},
		{"origin/main", first},
		{second.String(), second},
		{first.String()[:7], first},
	}
	for _, tt := range tests {
		got, err := r.Resolve(tt.rev)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.rev, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Resolve(%q) = %s, want %s", tt.rev, got, tt.want)
		}
	}
	if _, err := r.Resolve("nope"); err == nil {
		t.Error("Resolve(nope) succeeded")
	}
}

func TestMergeBaseAndIsAncestor(t *testing.T) {
	dir := newRepo(t)
	base := revParse(t, dir, "HEAD")
	run(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, dir, "side.txt", "side\n", 0o644)
	run(t, dir, "add", "side.txt")
	run(t, dir, "commit", "-q", "-m", "side")
	side := revParse(t, dir, "HEAD")
	run(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "README.md", "main\n", 0o644)
	run(t, dir, "commit", "-q", "-am", "main")
	main := revParse(t, dir, "HEAD")
	r := openRepo(t, dir)

	mb, err := r.MergeBase(side, main)
	if err != nil || mb != base {
		t.Errorf("MergeBase = %s, %v; want %s", mb, err, base)
	}
	tests := []struct {
		a, b plumbing.Hash
		want bool
	}{
		{base, main, true},
		{base, side, true},
		{main, main, true},
		{side, main, false},
		{main, base, false},
	}
	for _, tt := range tests {
		got, err := r.IsAncestor(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("IsAncestor(%s, %s) = %v, %v; want %v", tt.a, tt.b, got, err, tt.want)
		}
	}
}
