package gitsource

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitserver"
)

// remote makes a real repository with two commits on main, a lightweight
// and an annotated version tag and prefixed tags, and returns its bare
// clone's path and the commits by name.
func remote(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	bare := filepath.Join(dir, "charts.git")
	git := func(d string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = d
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(p, s string) {
		full := filepath.Join(work, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	git(work, "init", "-q", "-b", "main")
	write("charts/web/Chart.yaml", "name: web\nversion: 1.0.0\n")
	git(work, "add", "-A")
	git(work, "commit", "-qm", "one")
	c := map[string]string{"one": git(work, "rev-parse", "HEAD")}
	git(work, "tag", "v1.2.0")
	git(work, "tag", "-a", "-m", "ui", "ui/v2.0.0")
	write("charts/web/Chart.yaml", "name: web\nversion: 1.3.0\n")
	git(work, "commit", "-qam", "two")
	c["two"] = git(work, "rev-parse", "HEAD")
	git(work, "tag", "-a", "-m", "annotated", "v1.3.0")
	git(work, "tag", "ui/v2.1.0-rc.1")
	git(dir, "clone", "-q", "--bare", work, bare)
	return bare, c
}

func read(t *testing.T, fsys fs.FS, p string) string {
	t.Helper()
	b, err := fs.ReadFile(fsys, p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenResolvesLikeArgoCD(t *testing.T) {
	bare, commits := remote(t)
	url := "file://" + bare
	f, err := New(t.TempDir(), Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	f.LocalRepos = []string{"file://" + bare}
	ctx := context.Background()
	for _, tc := range []struct{ rev, prefix, want, version string }{
		{"main", "", "two", "1.3.0"},
		{"", "", "two", "1.3.0"},
		{"HEAD", "", "two", "1.3.0"},
		{"v1.2.0", "", "one", "1.0.0"},
		{"^1.2", "", "two", "1.3.0"}, // the annotated tag is peeled to its commit
		{"1.2.*", "", "one", "1.0.0"},
		{"^2.0.0-0", "ui/", "two", "1.3.0"}, // a range naming a pre-release matches one
		{"^2", "ui/", "one", "1.0.0"},
		{commits["one"], "", "one", "1.0.0"},
		{commits["one"][:9], "", "one", "1.0.0"},
	} {
		tree, commit, err := f.Open(ctx, url, tc.rev, tc.prefix)
		if err != nil {
			t.Fatalf("%q %q: %v", tc.rev, tc.prefix, err)
		}
		if commit != commits[tc.want] || !strings.Contains(read(t, tree, "charts/web/Chart.yaml"), tc.version) {
			t.Errorf("%q %q: commit %s, want %s (%s)", tc.rev, tc.prefix, commit, tc.want, commits[tc.want])
		}
	}
	if _, _, err := f.Open(ctx, url, "no-such-branch", ""); err == nil || !strings.Contains(err.Error(), "unable to resolve 'no-such-branch'") {
		t.Errorf("missing branch: %v", err)
	}
}

// A branch is fetched shallow, and a commit already cached opens with no
// remote at all.
func TestShallowAndOfflineOnceCached(t *testing.T) {
	bare, commits := remote(t)
	cache := t.TempDir()
	f, _ := New(cache, Credentials{})
	f.LocalRepos = []string{"file://" + bare}
	if _, _, err := f.Open(context.Background(), "file://"+bare, "main", ""); err != nil {
		t.Fatal(err)
	}
	shallow, err := filepath.Glob(filepath.Join(cache, "*", ".git", "shallow"))
	if err != nil || len(shallow) != 1 {
		t.Errorf("no shallow file in the cache: %v %v", shallow, err)
	}
	if err := os.RemoveAll(bare); err != nil {
		t.Fatal(err)
	}
	again, _ := New(cache, Credentials{})
	again.LocalRepos = f.LocalRepos
	tree, commit, err := again.Open(context.Background(), "file://"+bare, commits["two"], "")
	if err != nil || commit != commits["two"] || !strings.Contains(read(t, tree, "charts/web/Chart.yaml"), "1.3.0") {
		t.Fatalf("offline open: %s %v", commit, err)
	}
	_, _, err = again.Open(context.Background(), "file://"+bare, "main", "")
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), bare) {
		t.Errorf("unreachable remote: %v", err)
	}
}

// Over HTTP the token goes to the GitOps repository's host only, and no
// error shows it.
func TestCredentialsStayOnTheirHost(t *testing.T) {
	bare, commits := remote(t)
	const token = "glpat-s3cr3t-t0ken-value"
	srv := gitserver.New(t, bare, token)
	u, _ := url.Parse(srv.URL)
	ctx := context.Background()

	f, _ := New(t.TempDir(), Credentials{RepoURL: srv.URL + "/gitops.git", Token: token})
	if _, commit, err := f.Open(ctx, srv.URL, "main", ""); err != nil || commit != commits["two"] {
		t.Fatalf("with the token for this host: %s %v", commit, err)
	}
	f, _ = New(t.TempDir(), Credentials{RepoURL: "https://gitlab.example.com/org/gitops.git", Token: token, JobToken: token})
	_, _, err := f.Open(ctx, srv.URL, "main", "")
	if !errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), u.Host) {
		t.Errorf("token of another host: err = %v", err)
	}
	home := t.TempDir()
	line := "http://oauth2:" + token + "@" + u.Host + "\n"
	if err := os.WriteFile(filepath.Join(home, ".git-credentials"), []byte("https://x:y@other.example\n"+line), 0o600); err != nil {
		t.Fatal(err)
	}
	f, _ = New(t.TempDir(), Credentials{RepoURL: "https://gitlab.example.com/org/gitops.git", Home: home})
	if _, _, err := f.Open(ctx, srv.URL, "v1.2.0", ""); err != nil {
		t.Errorf("from ~/.git-credentials: %v", err)
	}
	netrcHome := t.TempDir()
	host, _, _ := strings.Cut(u.Host, ":")
	if err := os.WriteFile(filepath.Join(netrcHome, ".netrc"), []byte("machine other.example login a password b\nmachine "+host+"\n  login oauth2\n  password "+token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, _ = New(t.TempDir(), Credentials{Home: netrcHome})
	if _, _, err := f.Open(ctx, srv.URL, "main", ""); err != nil {
		t.Errorf("from ~/.netrc: %v", err)
	}
	f, _ = New(t.TempDir(), Credentials{RepoURL: srv.URL, Token: "wrong-token-value"})
	if _, _, err := f.Open(ctx, srv.URL, "main", ""); err == nil || strings.Contains(err.Error(), "wrong-token-value") {
		t.Errorf("wrong token: %v", err)
	}
}

func TestCIJobToken(t *testing.T) {
	c := Credentials{RepoURL: "git@gitlab.example.com:org/gitops.git", JobToken: "job-token-value"}
	a, _, err := c.auth("https://gitlab.example.com/group/charts.git")
	if err != nil || a == nil || !strings.Contains(a.String(), "gitlab-ci-token") {
		t.Errorf("job token auth = %v, %v", a, err)
	}
	if a, _, _ := c.auth("https://github.com/org/charts.git"); a != nil {
		t.Errorf("job token sent to another host: %v", a)
	}
}
