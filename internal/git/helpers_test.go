package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestMain isolates every git invocation (ours and the CLI's) from the
// machine's config: a throwaway HOME, no system config.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "gitops-promote-git-home-")
	if err != nil {
		panic(err)
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test Author",
		"GIT_AUTHOR_EMAIL":    "author@example.com",
		"GIT_COMMITTER_NAME":  "Test Committer",
		"GIT_COMMITTER_EMAIL": "committer@example.com",
	} {
		os.Setenv(k, v)
	}
	for _, k := range []string{"XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_WORK_TREE", "EMAIL"} {
		os.Unsetenv(k)
	}
	code := m.Run()
	os.RemoveAll(home)
	if bench20k.dir != "" {
		os.RemoveAll(bench20k.dir)
	}
	os.Exit(code)
}

// run runs the git CLI in dir and returns its trimmed stdout.
func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, dir, p, content string, mode os.FileMode) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(full, mode); err != nil {
		t.Fatal(err)
	}
}

// fixture is the work tree every test starts from.
var fixture = map[string]string{
	"README.md":                          "readme\n",
	"apps/web/values.yaml":               "image:\n  tag: v1\n",
	"apps/web/Chart.yaml":                "name: web\n",
	"apps/api/values.yaml":               "image:\n  tag: v1\n",
	"envs/prod/apps/web/values.yaml":     "replicas: 3\n",
	"envs/prod/apps/web/values-ext.yaml": "x: 1\n",
}

// newRepo creates a repository on branch main with the fixture committed,
// plus an executable script, and returns its directory.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	for p, c := range fixture {
		writeFile(t, dir, p, c, 0o644)
	}
	writeFile(t, dir, "scripts/deploy.sh", "#!/bin/sh\necho deploy\n", 0o755)
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// commitSymlinks adds symlinks to dir's work tree (link path -> target,
// both slash paths) and commits them.
func commitSymlinks(t *testing.T, dir string, links map[string]string) {
	t.Helper()
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "links")
}

func openRepo(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return r
}

func revParse(t *testing.T, dir, rev string) plumbing.Hash {
	t.Helper()
	return plumbing.NewHash(run(t, dir, "rev-parse", rev))
}

// commitFiles writes a commit on HEAD with the test identity.
func commitFiles(t *testing.T, r *Repo, parent plumbing.Hash, files map[string]string, msg string) plumbing.Hash {
	t.Helper()
	b := map[string][]byte{}
	for p, c := range files {
		b[p] = []byte(c)
	}
	h, err := r.CommitFiles(parent, b, msg, testAuthor, testCommitter, testWhen)
	if err != nil {
		t.Fatalf("CommitFiles: %v", err)
	}
	return h
}
