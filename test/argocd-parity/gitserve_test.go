package parity

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitHost serves the corpora over git's smart HTTP protocol on loopback
// (git http-backend): the repo-server lists refs with go-git, which
// honours no insteadOf rule, so the corpora must be where their apps say.
type gitHost struct {
	url, root string
}

func newGitHost(t *testing.T) *gitHost {
	root := t.TempDir()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	h := &cgi.Handler{Path: gitPath, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &gitHost{url: srv.URL, root: root}
}

// repoURL is the URL corpus name is served at once published.
func (g *gitHost) repoURL(name string) string { return g.url + "/" + name + ".git" }

// publish commits dir's tree (rewriting every from URL to the corpus's
// URL first) and serves it as name.
func (g *gitHost) publish(t *testing.T, name, dir string, from ...string) {
	t.Helper()
	if len(from) > 0 {
		var pairs []string
		for _, f := range from {
			pairs = append(pairs, f, g.repoURL(name))
		}
		rewrite(t, dir, strings.NewReplacer(pairs...))
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		run(t, dir, "git", "init", "-q", "-b", "main")
	}
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "-c", "user.name=parity", "-c", "user.email=parity@example.com", "commit", "-q", "--allow-empty", "-m", "corpus")
	run(t, "", "git", "clone", "-q", "--bare", dir, filepath.Join(g.root, name+".git"))
}

// rewrite replaces URLs in every file of dir but .git.
func rewrite(t *testing.T, dir string, r *strings.Replacer) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && info.Name() == ".git" {
			return filepath.SkipDir
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if out := r.Replace(string(data)); out != string(data) {
			return os.WriteFile(p, []byte(out), info.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var _ http.Handler = (*cgi.Handler)(nil)
