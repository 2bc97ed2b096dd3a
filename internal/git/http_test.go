package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// serveGit serves the bare repositories under root through the real `git
// http-backend` as CGI, behind HTTP basic auth as user oauth2 with token.
// wrap, if not nil, may intercept requests before the backend.
func serveGit(t *testing.T, root, token string, wrap func(backend http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	var backend http.Handler = &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env: []string{
			"GIT_PROJECT_ROOT=" + root,
			"GIT_HTTP_EXPORT_ALL=1",
			"REMOTE_USER=oauth2", // enables receive-pack for an authenticated user
			"GIT_CONFIG_NOSYSTEM=1",
			"HOME=" + os.Getenv("HOME"),
		},
	}
	if wrap != nil {
		backend = wrap(backend)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "oauth2" || pass != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// httpClone returns a clone of a fresh remote whose origin points at the
// remote over HTTP, and the remote's directory.
func httpClone(t *testing.T, token string, wrap func(http.Handler) http.Handler) (clone, bare string) {
	t.Helper()
	bare, a, _ := newRemote(t)
	srv := serveGit(t, filepath.Dir(bare), token, wrap)
	run(t, a, "remote", "set-url", "origin", srv.URL+"/remote.git")
	return a, bare
}

func TestPushHTTPAuth(t *testing.T) {
	const token = "glpat-right-token-123"
	tests := []struct {
		name    string
		auth    transport.AuthMethod
		wantErr bool
	}{
		{name: "right token", auth: &githttp.BasicAuth{Username: "oauth2", Password: token}},
		{name: "wrong token", auth: &githttp.BasicAuth{Username: "oauth2", Password: "glpat-wrong-token-456"}, wantErr: true},
		{name: "no auth", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, bare := httpClone(t, token, nil)
			r := openRepo(t, dir)
			head := revParse(t, dir, "HEAD")
			next := commitFiles(t, r, head, map[string]string{"apps/web/values.yaml": "tag: v9\n"}, "promote")
			err := r.Push(context.Background(), "origin", "main", next, tt.auth)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Push: %v", err)
				}
				if got := revParse(t, bare, "main"); got != next {
					t.Errorf("remote main = %s, want %s", got, next)
				}
				if tip, err := r.Fetch(context.Background(), "origin", "main", tt.auth); err != nil || tip != next {
					t.Errorf("Fetch = %s, %v; want %s", tip, err, next)
				}
				return
			}
			if err == nil {
				t.Fatal("Push succeeded without the right token")
			}
			if errors.Is(err, ErrRejected) {
				t.Errorf("auth failure classified as ErrRejected: %v", err)
			}
			if !errors.Is(err, transport.ErrAuthenticationRequired) && !errors.Is(err, transport.ErrAuthorizationFailed) {
				t.Errorf("err = %v, want an authentication error", err)
			}
			if a, ok := tt.auth.(*githttp.BasicAuth); ok && strings.Contains(err.Error(), a.Password) {
				t.Errorf("error contains the token: %v", err)
			}
			if got := revParse(t, bare, "main"); got != head {
				t.Errorf("remote main moved to %s", got)
			}
		})
	}
}

// pkt frames s as a git pkt-line.
func pkt(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }

// rejectReceivePack answers every receive-pack POST with a report-status
// that refuses refs/heads/main for reason, as GitLab does when it loses a
// race, instead of running the backend.
func rejectReceivePack(reason string) func(http.Handler) http.Handler {
	return func(backend http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/git-receive-pack") {
				backend.ServeHTTP(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			report := pkt("unpack ok\n") + pkt("ng refs/heads/main "+reason+"\n") + "0000"
			// The capabilities ride on the first command's pkt-line.
			if bytes.Contains(body[:min(len(body), 512)], []byte("side-band")) {
				report = pkt("\x01"+report) + "0000"
			}
			w.Header().Set("Content-Type", "application/x-git-receive-pack-result")
			io.WriteString(w, report)
		})
	}
}

func TestPushHTTPReportStatus(t *testing.T) {
	const token = "glpat-right-token-123"
	tests := []struct {
		reason       string
		wantRejected bool
	}{
		{"incorrect old value provided", true},
		{"fetch first", true},
		{"pre-receive hook declined", false},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			dir, _ := httpClone(t, token, rejectReceivePack(tt.reason))
			r := openRepo(t, dir)
			head := revParse(t, dir, "HEAD")
			next := commitFiles(t, r, head, map[string]string{"README.md": "x\n"}, "promote")
			err := r.Push(context.Background(), "origin", "main", next, &githttp.BasicAuth{Username: "oauth2", Password: token})
			if err == nil {
				t.Fatal("Push succeeded against a refusing server")
			}
			if got := errors.Is(err, ErrRejected); got != tt.wantRejected {
				t.Errorf("errors.Is(%v, ErrRejected) = %v, want %v", err, got, tt.wantRejected)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("error %q lacks the server's reason", err)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("error contains the token: %v", err)
			}
		})
	}
}
