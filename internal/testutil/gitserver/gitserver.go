// Package gitserver serves a bare git repository over smart HTTP(S) through
// the real `git http-backend`, behind the token auth GitLab uses for CI
// pushes (HTTP basic auth, user "oauth2", password the token). It is for
// tests only: it takes a testing.TB, fails the test on setup errors and
// shuts down in t.Cleanup.
package gitserver

import (
	"encoding/pem"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// User is the basic-auth user name the server requires, as GitLab does for
// tokens.
const User = "oauth2"

// Server is one bare repository served over HTTP or HTTPS.
type Server struct {
	// URL is the repository's clone URL, without credentials:
	// http(s)://127.0.0.1:PORT/NAME.git.
	URL string
	// CAFile is a PEM file holding the server's certificate (HTTPS only):
	// point SSL_CERT_FILE (Go programs) or GIT_SSL_CAINFO (the git CLI) at
	// it so that clients verify the server for real.
	CAFile string
	// HTTP is the underlying server.
	HTTP *httptest.Server
}

// Option configures New.
type Option func(*options)

type options struct {
	tls  bool
	wrap func(backend http.Handler) http.Handler
}

// WithTLS serves HTTPS with httptest's self-signed certificate (valid for
// 127.0.0.1), written to Server.CAFile.
func WithTLS() Option { return func(o *options) { o.tls = true } }

// WithWrap lets a test intercept authenticated requests before the backend
// sees them, e.g. to answer a push the way a particular forge does.
func WithWrap(wrap func(backend http.Handler) http.Handler) Option {
	return func(o *options) { o.wrap = wrap }
}

// New serves the bare repository bare. Requests without basic auth as
// User with token get 401 and a WWW-Authenticate challenge, as a forge
// answers; so do requests for any other path, which keeps sibling
// directories of bare private. Pushes are enabled by setting
// http.receivepack in bare's config.
func New(t testing.TB, bare, token string, opts ...Option) *Server {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	bare, err := filepath.Abs(bare)
	if err != nil {
		t.Fatalf("gitserver: %v", err)
	}
	home := t.TempDir()
	gitEnv := []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=" + home}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), gitEnv...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("gitserver: git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("-C", bare, "config", "http.receivepack", "true")
	var backend http.Handler = &cgi.Handler{
		Path: filepath.Join(git("--exec-path"), "git-http-backend"),
		Env:  append([]string{"GIT_PROJECT_ROOT=" + filepath.Dir(bare), "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=" + User}, gitEnv...),
		// what git says (a lost ref race's "cannot lock ref" under
		// contention) goes to the test's log, not the terminal of a run
		// that passes; the client sees the refusal in the answer
		Stderr: newTestLog(t),
	}
	if o.wrap != nil {
		backend = o.wrap(backend)
	}
	prefix := "/" + filepath.Base(bare) + "/"
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != User || pass != token || !strings.HasPrefix(r.URL.Path, prefix) {
			w.Header().Set("WWW-Authenticate", `Basic realm="gitserver"`)
			http.Error(w, "HTTP Basic: Access denied", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	})
	s := &Server{}
	if o.tls {
		s.HTTP = httptest.NewTLSServer(handler)
		s.CAFile = filepath.Join(t.TempDir(), "ca.pem")
		block := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.HTTP.Certificate().Raw})
		if err := os.WriteFile(s.CAFile, block, 0o644); err != nil {
			t.Fatalf("gitserver: %v", err)
		}
	} else {
		s.HTTP = httptest.NewServer(handler)
	}
	t.Cleanup(s.HTTP.Close)
	s.URL = s.HTTP.URL + strings.TrimSuffix(prefix, "/")
	return s
}

// URLWithCredentials is URL with user:password embedded, as some CI
// systems configure remotes.
func (s *Server) URLWithCredentials(user, password string) string {
	scheme, rest, _ := strings.Cut(s.URL, "://")
	return scheme + "://" + user + ":" + password + "@" + rest
}

// testLog writes what the backend prints to the test's log, until the
// test ends (a late write is dropped: logging then would panic).
type testLog struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func newTestLog(t testing.TB) *testLog {
	l := &testLog{t: t}
	t.Cleanup(func() {
		l.mu.Lock()
		l.done = true
		l.mu.Unlock()
	})
	return l
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.t.Logf("git http-backend: %s", strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}
