package git

import (
	"bytes"
	"crypto/sha1"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDirtyPaths(t *testing.T) {
	asked := []string{"apps/web/values.yaml", "apps/api/values.yaml", "scripts/deploy.sh", "envs/new/values.yaml"}
	tests := []struct {
		name  string
		dirty func(t *testing.T, dir string)
		want  []string
	}{
		{name: "clean", dirty: func(*testing.T, string) {}},
		{name: "unrelated dirt ignored", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, "README.md", "changed\n", 0o644)
			writeFile(t, dir, "untracked.txt", "x\n", 0o644)
			writeFile(t, dir, "envs/prod/apps/web/values.yaml", "staged\n", 0o644)
			run(t, dir, "add", "envs/prod/apps/web/values.yaml")
		}},
		{name: "modified in work tree", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, "apps/web/values.yaml", "image:\n  tag: local\n", 0o644)
		}, want: []string{"apps/web/values.yaml"}},
		{name: "staged only", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, "apps/api/values.yaml", "staged\n", 0o644)
			run(t, dir, "add", "apps/api/values.yaml")
			writeFile(t, dir, "apps/api/values.yaml", fixture["apps/api/values.yaml"], 0o644)
		}, want: []string{"apps/api/values.yaml"}},
		{name: "untracked", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, "envs/new/values.yaml", "x\n", 0o644)
		}, want: []string{"envs/new/values.yaml"}},
		{name: "deleted", dirty: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "apps/web/values.yaml"))
		}, want: []string{"apps/web/values.yaml"}},
		{name: "mode change", dirty: func(t *testing.T, dir string) {
			os.Chmod(filepath.Join(dir, "scripts/deploy.sh"), 0o644)
		}, want: []string{"scripts/deploy.sh"}},
		{name: "touched but same content", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, "apps/web/values.yaml", fixture["apps/web/values.yaml"], 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			tt.dirty(t, dir)
			got, err := openRepo(t, dir).DirtyPaths(asked)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DirtyPaths (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDirtyPathsAndSymlinks: a committed symlink is compared as a link (its
// target), never followed, and a path through a symlinked directory is in
// neither HEAD's tree nor the index (git refuses to add a path beyond a
// symbolic link).
func TestDirtyPathsAndSymlinks(t *testing.T) {
	dir := newRepo(t)
	commitSymlinks(t, dir, map[string]string{"apps/link.yaml": "web/values.yaml", "appsdir": "apps"})
	r := openRepo(t, dir)
	got, err := r.DirtyPaths([]string{"apps/link.yaml", "appsdir", "appsdir/web/values.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	// a file is at appsdir/web/values.yaml only through the link, and the
	// tree has none there: dirty, as an untracked file is
	if diff := cmp.Diff([]string{"appsdir/web/values.yaml"}, got); diff != "" {
		t.Errorf("DirtyPaths (-want +got):\n%s", diff)
	}
	if err := os.Remove(filepath.Join(dir, "apps/link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("api/values.yaml", filepath.Join(dir, "apps/link.yaml")); err != nil {
		t.Fatal(err)
	}
	if got, err := r.DirtyPaths([]string{"apps/link.yaml"}); err != nil || len(got) != 1 {
		t.Errorf("DirtyPaths after retargeting the link = %v, %v; want it dirty", got, err)
	}
}

func TestWriteWorktree(t *testing.T) {
	dir := newRepo(t)
	// A racy-clean index and a cache tree make the test closer to a real
	// clone: git status must not rely on either after our rewrite.
	run(t, dir, "status", "--porcelain")
	r := openRepo(t, dir)
	head := revParse(t, dir, "HEAD")
	files := map[string]string{
		"apps/web/values.yaml":           "image:\n  tag: v2\n",
		"scripts/deploy.sh":              "#!/bin/sh\necho v2\n",
		"envs/staging/web/values.yaml":   "replicas: 1\n",
		"envs/prod/apps/web/values.yaml": "replicas: 5\n",
	}
	next := commitFiles(t, r, head, files, "promote")
	b := map[string][]byte{}
	for p, c := range files {
		b[p] = []byte(c)
	}
	if err := r.updateHead(head, next); err != nil {
		t.Fatal(err)
	}
	if err := r.writeWorktree(b); err != nil {
		t.Fatalf("WriteWorktree: %v", err)
	}
	if got := run(t, dir, "status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("git status after WriteWorktree:\n%s", got)
	}
	if got := run(t, dir, "diff-index", "--cached", "HEAD"); got != "" {
		t.Errorf("index differs from HEAD:\n%s", got)
	}
	fi, err := os.Stat(filepath.Join(dir, "scripts/deploy.sh"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("deploy.sh mode = %v, %v; want 0755", fi.Mode(), err)
	}
	for p, c := range files {
		got, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || string(got) != c {
			t.Errorf("%s = %q, %v; want %q", p, got, err, c)
		}
	}
	if left := tempsUnder(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git/index.lock")); !os.IsNotExist(err) {
		t.Errorf("index.lock left behind: %v", err)
	}
	// A commit made by git itself must record exactly HEAD's tree: our
	// index rewrite must not leave a stale cache tree behind.
	run(t, dir, "commit", "-q", "--allow-empty", "-m", "by git")
	if a, b := revParse(t, dir, "HEAD^{tree}"), revParse(t, dir, "HEAD~1^{tree}"); a != b {
		t.Errorf("git commit after WriteWorktree changed the tree: %s vs %s", a, b)
	}
	if got, err := r.DirtyPaths([]string{"apps/web/values.yaml", "envs/staging/web/values.yaml"}); err != nil || len(got) != 0 {
		t.Errorf("DirtyPaths after WriteWorktree = %v, %v", got, err)
	}
}

func TestWriteWorktreeRefusesSymlink(t *testing.T) {
	dir := newRepo(t)
	if err := os.Symlink("web/values.yaml", filepath.Join(dir, "apps/link.yaml")); err != nil {
		t.Fatal(err)
	}
	err := openRepo(t, dir).writeWorktree(map[string][]byte{"apps/link.yaml": []byte("x")})
	if err == nil {
		t.Fatal("WriteWorktree through a symlink succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, ".git/index.lock")); !os.IsNotExist(err) {
		t.Errorf("index.lock left behind after failure: %v", err)
	}
}

func TestWriteWorktreeIndexFormats(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"v2", func(t *testing.T, dir string) { run(t, dir, "update-index", "--index-version", "2") }},
		{"v3 intent-to-add", func(t *testing.T, dir string) {
			writeFile(t, dir, "envs/new/values.yaml", "placeholder\n", 0o644)
			run(t, dir, "add", "-N", "envs/new/values.yaml")
		}},
		{"v4", func(t *testing.T, dir string) { run(t, dir, "update-index", "--index-version", "4") }},
		{"untracked cache", func(t *testing.T, dir string) {
			run(t, dir, "update-index", "--untracked-cache")
			run(t, dir, "status", "--porcelain")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			tt.setup(t, dir)
			r := openRepo(t, dir)
			head := revParse(t, dir, "HEAD")
			files := map[string]string{
				"apps/web/values.yaml": "image:\n  tag: v3\n", // existing entry: patched in place
				"envs/new/values.yaml": "replicas: 2\n",       // new entry: inserted
				"zzz/last.yaml":        "last\n",              // new entry after all others
			}
			next := commitFiles(t, r, head, files, "promote")
			if err := r.updateHead(head, next); err != nil {
				t.Fatal(err)
			}
			b := map[string][]byte{}
			for p, c := range files {
				b[p] = []byte(c)
			}
			if err := r.writeWorktree(b); err != nil {
				t.Fatalf("WriteWorktree: %v", err)
			}
			if got := run(t, dir, "status", "--porcelain", "--untracked-files=all"); got != "" {
				t.Errorf("git status:\n%s", got)
			}
			if got := run(t, dir, "diff-index", "--cached", "HEAD"); got != "" {
				t.Errorf("index differs from HEAD:\n%s", got)
			}
			run(t, dir, "ls-files", "--debug") // git must parse the index
			got, err := r.DirtyPaths([]string{"apps/web/values.yaml", "envs/new/values.yaml", "zzz/last.yaml"})
			if err != nil || len(got) != 0 {
				t.Errorf("DirtyPaths = %v, %v", got, err)
			}
		})
	}
}

func TestWriteWorktreeRefusesConflict(t *testing.T) {
	dir := newRepo(t)
	run(t, dir, "checkout", "-q", "-b", "other")
	writeFile(t, dir, "README.md", "other\n", 0o644)
	run(t, dir, "commit", "-q", "-am", "other")
	run(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "README.md", "main\n", 0o644)
	run(t, dir, "commit", "-q", "-am", "main")
	cmd := exec.Command("git", "merge", "-q", "other")
	cmd.Dir = dir
	if err := cmd.Run(); err == nil {
		t.Fatal("merge unexpectedly succeeded")
	}
	r := openRepo(t, dir)
	if err := r.writeWorktree(map[string][]byte{"README.md": []byte("x\n")}); err == nil {
		t.Error("WriteWorktree over a conflicted path succeeded")
	}
	if got, err := r.DirtyPaths([]string{"README.md"}); err != nil || len(got) != 1 {
		t.Errorf("DirtyPaths on a conflict = %v, %v", got, err)
	}
}

// TestIndexReadAgainWhenReplaced: the index read for DirtyPaths is reused
// under index.lock only while it is the same file; one that git replaced
// meanwhile (here a `git add`) is read again, so its entries survive.
func TestIndexReadAgainWhenReplaced(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	if got, err := r.DirtyPaths([]string{"apps/web/values.yaml"}); err != nil || len(got) != 0 {
		t.Fatalf("DirtyPaths = %v, %v", got, err)
	}
	writeFile(t, dir, "staged.txt", "staged meanwhile\n", 0o644)
	run(t, dir, "add", "staged.txt")
	head := revParse(t, dir, "HEAD")
	files := map[string]string{"apps/web/values.yaml": "image:\n  tag: v9\n"}
	next := commitFiles(t, r, head, files, "promote")
	if err := r.updateHead(head, next); err != nil {
		t.Fatal(err)
	}
	if err := r.writeWorktree(map[string][]byte{"apps/web/values.yaml": []byte(files["apps/web/values.yaml"])}); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "status", "--porcelain"); got != "A  staged.txt" {
		t.Errorf("git status = %q, want the staged file kept", got)
	}
}

// tempsUnder lists the temporary files of work-tree writes under dir.
func tempsUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), ".tmp-") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An existing file is replaced by a rename over it: another hard link
// keeps the old content, the mode stays, no temporary file is left behind.
func TestWriteWorktreeReplacesLikeRename(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	head := revParse(t, dir, "HEAD")
	p := filepath.Join(dir, "scripts/deploy.sh")
	other := filepath.Join(filepath.Dir(p), "other-name")
	if err := os.Link(p, other); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p)
	next := commitFiles(t, r, head, map[string]string{"scripts/deploy.sh": "#!/bin/sh\necho v3\n"}, "promote")
	if err := r.updateHead(head, next); err != nil {
		t.Fatal(err)
	}
	if err := r.writeWorktree(map[string][]byte{"scripts/deploy.sh": []byte("#!/bin/sh\necho v3\n")}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "#!/bin/sh\necho v3\n" {
		t.Errorf("deploy.sh = %q", got)
	}
	if got, _ := os.ReadFile(other); string(got) != string(before) {
		t.Errorf("the other hard link = %q, want the old content %q", got, before)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, %v; want 0755", fi.Mode(), err)
	}
	if left := tempsUnder(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A repository without an index file yet (git creates it on the first
// add): the new index is renamed into place, there is nothing to swap.
func TestWriteWorktreeWithoutIndex(t *testing.T) {
	dir := newRepo(t)
	if err := os.Remove(filepath.Join(dir, ".git", "index")); err != nil {
		t.Fatal(err)
	}
	r := openRepo(t, dir)
	head := revParse(t, dir, "HEAD")
	next := commitFiles(t, r, head, map[string]string{"scripts/deploy.sh": "#!/bin/sh\necho v4\n"}, "promote")
	if err := r.updateHead(head, next); err != nil {
		t.Fatal(err)
	}
	if err := r.writeWorktree(map[string][]byte{"scripts/deploy.sh": []byte("#!/bin/sh\necho v4\n")}); err != nil {
		t.Fatalf("writeWorktree without an index: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "index")); err != nil {
		t.Errorf("no index written: %v", err)
	}
	if left := tempsUnder(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// An index written with index.skipHash (git 2.40's feature.manyFiles)
// ends in zeros instead of its checksum: it is read and rewritten whole,
// with a checksum (git reads both kinds, whatever its settings), and git
// reads what was written, new entries included.
func TestSkipHashIndex(t *testing.T) {
	dir := newRepo(t)
	p := filepath.Join(dir, ".git", "index")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, sha1.Size)
	copy(data[len(data)-sha1.Size:], zeros)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := openRepo(t, dir)
	if got, err := r.DirtyPaths([]string{"apps/web/values.yaml"}); err != nil || len(got) != 0 {
		t.Fatalf("DirtyPaths = %v, %v", got, err)
	}
	head := revParse(t, dir, "HEAD")
	files := map[string]string{"apps/web/values.yaml": "image:\n  tag: v7\n", "envs/new/values.yaml": "replicas: 2\n"}
	next := commitFiles(t, r, head, files, "promote")
	if err := r.updateHead(head, next); err != nil {
		t.Fatal(err)
	}
	b := map[string][]byte{}
	for f, c := range files {
		b[f] = []byte(c)
	}
	if err := r.writeWorktree(b); err != nil {
		t.Fatalf("writeWorktree: %v", err)
	}
	after, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	n := len(after) - sha1.Size
	if sum := sha1.Sum(after[:n]); !bytes.Equal(after[n:], sum[:]) {
		t.Error("the rewritten index does not end in its checksum")
	}
	if got := run(t, dir, "status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("git status:\n%s", got)
	}
}
