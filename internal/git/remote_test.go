package git

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/google/go-cmp/cmp"
)

// newRemote returns a bare copy of a fresh fixture repository and two
// clones of it over file://.
func newRemote(t *testing.T) (bare, a, b string) {
	t.Helper()
	root := t.TempDir()
	bare = filepath.Join(root, "remote.git")
	run(t, root, "clone", "-q", "--bare", newRepo(t), bare)
	a, b = filepath.Join(root, "a"), filepath.Join(root, "b")
	run(t, root, "clone", "-q", "file://"+bare, a)
	run(t, root, "clone", "-q", "file://"+bare, b)
	return bare, a, b
}

func TestPushFetchFile(t *testing.T) {
	ctx := context.Background()
	bare, a, b := newRemote(t)
	ra, rb := openRepo(t, a), openRepo(t, b)
	base := revParse(t, a, "HEAD")

	c1 := commitFiles(t, ra, base, map[string]string{"apps/web/values.yaml": "image:\n  tag: v2\n"}, "a")
	if err := ra.Push(ctx, "origin", "main", c1, nil); err != nil {
		t.Fatalf("Push: %v", err)
	}
	if got := revParse(t, bare, "main"); got != c1 {
		t.Errorf("remote main = %s, want %s", got, c1)
	}
	if got := revParse(t, a, "refs/remotes/origin/main"); got != c1 {
		t.Errorf("origin/main = %s, want %s", got, c1)
	}
	if err := ra.Push(ctx, "origin", "main", c1, nil); err != nil {
		t.Errorf("Push when up to date: %v", err)
	}

	c2 := commitFiles(t, rb, base, map[string]string{"apps/api/values.yaml": "image:\n  tag: v2\n"}, "b")
	err := rb.Push(ctx, "origin", "main", c2, nil)
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("Push after the remote moved: err = %v, want ErrRejected", err)
	}
	if got := revParse(t, bare, "main"); got != c1 {
		t.Errorf("rejected push moved remote main to %s", got)
	}

	tip, err := rb.Fetch(ctx, "origin", "main", nil)
	if err != nil || tip != c1 {
		t.Fatalf("Fetch = %s, %v; want %s", tip, err, c1)
	}
	if tip, err := rb.Fetch(ctx, "origin", "main", nil); err != nil || tip != c1 {
		t.Errorf("Fetch when up to date = %s, %v", tip, err)
	}
	c3 := commitFiles(t, rb, c1, map[string]string{"apps/api/values.yaml": "image:\n  tag: v2\n"}, "b again")
	if err := rb.Push(ctx, "origin", "main", c3, nil); err != nil {
		t.Fatalf("Push after fetch and rebuild: %v", err)
	}
	if got := revParse(t, bare, "main"); got != c3 {
		t.Errorf("remote main = %s, want %s", got, c3)
	}
	run(t, bare, "fsck", "--strict", "--no-dangling")

	missing := plumbing.NewHash("0123456789012345678901234567890123456789")
	if err := rb.Push(ctx, "origin", "main", missing, nil); err == nil {
		t.Error("Push of a missing commit succeeded")
	}
}

func TestPushScrubsCredentials(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens: the error will carry the URL
	dir := newRepo(t)
	const urlSecret, authSecret = "url-secret-7f3a9", "auth-secret-c41d2"
	run(t, dir, "remote", "add", "origin", "http://oauth2:"+urlSecret+"@"+addr+"/g/r.git")
	r := openRepo(t, dir)
	head := revParse(t, dir, "HEAD")
	auths := []transport.AuthMethod{nil, &http.BasicAuth{Username: "oauth2", Password: authSecret}}
	for _, auth := range auths {
		errs := []error{r.Push(context.Background(), "origin", "main", head, auth)}
		_, ferr := r.Fetch(context.Background(), "origin", "main", auth)
		errs = append(errs, ferr)
		for _, err := range errs {
			if err == nil {
				t.Fatal("network operation to a closed port succeeded")
			}
			for _, s := range []string{urlSecret, authSecret} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error leaks a secret: %v", err)
				}
			}
		}
	}
}

func TestIsRejection(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{errors.New("non-fast-forward update: refs/heads/main"), true},
		{errors.New("command error on refs/heads/main: incorrect old value provided"), true},
		{errors.New("command error on refs/heads/main: fetch first"), true},
		{errors.New("! [rejected] main -> main (stale info)"), true},
		{errors.New("command error on refs/heads/main: failed to lock"), true},
		{gogit.ErrForceNeeded, true},
		{plumbing.ErrObjectNotFound, true},
		{errors.New("command error on refs/heads/main: pre-receive hook declined"), false},
		{transport.ErrAuthenticationRequired, false},
		{errors.New("unexpected EOF"), false},
	}
	for _, tt := range tests {
		if got := isRejection(tt.err); got != tt.want {
			t.Errorf("isRejection(%q) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestScrub(t *testing.T) {
	tests := []struct {
		in, want string
		secrets  []string
	}{
		{`Post "https://oauth2:glpat-abc123@gitlab.example.com/g/r.git/git-receive-pack": EOF`,
			`Post "https://***@gitlab.example.com/g/r.git/git-receive-pack": EOF`, nil},
		{"fetching https://tok3n@github.com/o/r: x", "fetching https://***@github.com/o/r: x", nil},
		{"ssh://git@host:22/r.git failed", "ssh://***@host:22/r.git failed", nil},
		{"git@gitlab.com:g/r.git failed", "git@gitlab.com:g/r.git failed", nil},
		{"token glpat-xyz789 was refused", "token *** was refused", []string{"glpat-xyz789"}},
		{"short secrets are masked as words only: abc, abcd", "short secrets are masked as words only: ***, abcd", []string{"abc"}},
	}
	for _, tt := range tests {
		if got := scrubSecrets(tt.in, tt.secrets); got != tt.want {
			t.Errorf("scrub(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRemoteURL(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://oauth2:glpat-secret@gitlab.example.com/g/r.git", "https://gitlab.example.com/g/r.git"},
		{"https://gitlab.example.com/g/r.git", "https://gitlab.example.com/g/r.git"},
		{"git@gitlab.example.com:g/r.git", "git@gitlab.example.com:g/r.git"},
		{"/srv/git/r.git", "/srv/git/r.git"},
	}
	for _, tt := range tests {
		dir := newRepo(t)
		run(t, dir, "remote", "add", "origin", tt.url)
		got, err := openRepo(t, dir).RemoteURL("origin")
		if err != nil || got != tt.want {
			t.Errorf("RemoteURL(%q) = %q, %v; want %q", tt.url, got, err, tt.want)
		}
	}
	if _, err := openRepo(t, newRepo(t)).RemoteURL("nope"); err == nil {
		t.Error("RemoteURL of a missing remote succeeded")
	}
}

func TestAuthFor(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	tests := []struct {
		url, token string
		want       transport.AuthMethod
		wantErr    bool
	}{
		{url: "https://gitlab.example.com/g/r.git", token: "tok", want: &http.BasicAuth{Username: "oauth2", Password: "tok"}},
		{url: "http://localhost:8080/g/r.git", token: "tok", want: &http.BasicAuth{Username: "oauth2", Password: "tok"}},
		{url: "https://gitlab.example.com/g/r.git", token: ""},
		{url: "file:///srv/git/r.git"},
		{url: "/srv/git/r.git"},
		{url: "git@gitlab.example.com:g/r.git", wantErr: true}, // no agent running
		{url: "ssh://git@gitlab.example.com/g/r.git", wantErr: true},
	}
	for _, tt := range tests {
		got, err := AuthFor(tt.url, tt.token)
		if (err != nil) != tt.wantErr {
			t.Errorf("AuthFor(%q) error = %v, wantErr %v", tt.url, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("AuthFor(%q) (-want +got):\n%s", tt.url, diff)
		}
	}
}

// scrubSecrets is scrubText for a plain list of secrets (passwords, tokens).
func scrubSecrets(msg string, secrets []string) string {
	var s scrub.Set
	for _, v := range secrets {
		s.AddCredential("", v)
	}
	return s.Text(msg)
}
