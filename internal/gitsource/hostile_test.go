package gitsource

import (
	"context"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitserver"
)

// Other repositories served by hosts that misbehave: the token goes to
// the GitOps repository's host over HTTPS only, never follows a redirect
// elsewhere, never shows in an error in any form, and a silent server
// does not hang the run.

const hostileToken = "glpat-Hostile-Tok-31Ab"

func tokenForms(tok string) []string {
	return []string{tok, url.QueryEscape(tok), base64.StdEncoding.EncodeToString([]byte("oauth2:" + tok)),
		base64.StdEncoding.EncodeToString([]byte(tok))}
}

// recorder is a front on loopback that records the credentials it
// receives and passes requests to next.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  int
	creds []string
}

func newRecorder(t *testing.T, host string, next http.Handler) *recorder {
	r := &recorder{Server: httptest.NewUnstartedServer(nil)}
	r.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs++
		if a := req.Header.Get("Authorization"); a != "" {
			r.creds = append(r.creds, a)
		}
		r.mu.Unlock()
		next.ServeHTTP(w, req)
	})
	r.Start()
	t.Cleanup(r.Close)
	if host != "127.0.0.1" {
		r.URL = strings.Replace(r.URL, "127.0.0.1", host, 1)
	}
	return r
}

func (r *recorder) seen() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reqs, slices.Clone(r.creds)
}

func proxyTo(t *testing.T, rawURL string) http.Handler {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return httputil.NewSingleHostReverseProxy(u)
}

func TestTokenOnlyOverHTTPSOrTheGitOpsScheme(t *testing.T) {
	bare, commits := remote(t)
	srv := gitserver.New(t, bare, hostileToken)
	front := newRecorder(t, "127.0.0.1", proxyTo(t, srv.URL))
	ctx := context.Background()

	// the GitOps repository is https on this host: a plain-HTTP source of
	// the same host gets no token
	f, _ := New(t.TempDir(), Credentials{RepoURL: strings.Replace(front.URL, "http://", "https://", 1) + "/gitops.git", Token: hostileToken})
	if _, _, err := f.Open(ctx, front.URL, "main", ""); !errors.Is(err, ErrUnreachable) {
		t.Errorf("plain HTTP source: %v, want ErrUnreachable", err)
	}
	if n, creds := front.seen(); n == 0 || len(creds) > 0 {
		t.Errorf("plain HTTP source: %d requests, credentials %q", n, creds)
	}
	// the GitOps repository itself is plain HTTP there (a test server)
	f, _ = New(t.TempDir(), Credentials{RepoURL: front.URL + "/gitops.git", Token: hostileToken})
	if _, commit, err := f.Open(ctx, front.URL, "main", ""); err != nil || commit != commits["two"] {
		t.Errorf("same scheme: %s %v", commit, err)
	}
}

func TestRedirectElsewhereGetsNoToken(t *testing.T) {
	bare, _ := remote(t)
	srv := gitserver.New(t, bare, hostileToken)
	elsewhere := newRecorder(t, "localhost", proxyTo(t, srv.URL))
	front := newRecorder(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	f, _ := New(t.TempDir(), Credentials{RepoURL: front.URL + "/gitops.git", Token: hostileToken})
	_, _, err := f.Open(context.Background(), front.URL, "main", "")
	n, creds := elsewhere.seen()
	if n == 0 {
		t.Fatalf("the redirect was not followed (%v): the test proves nothing", err)
	}
	if len(creds) > 0 {
		t.Errorf("the other host got %q", creds)
	}
	if _, creds := front.seen(); len(creds) == 0 {
		t.Error("the GitOps host itself got no token: the test proves nothing")
	}
	noToken(t, err)
}

func noToken(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, f := range tokenForms(hostileToken) {
		if strings.Contains(err.Error(), f) {
			t.Errorf("%q in %v", f, err)
		}
	}
}

// A server that echoes the request's Authorization header (and the token
// URL-escaped) in the body of its error; go-git puts the body of a 401,
// 403 or 404 in its error.
func TestEchoedCredentialsNeverShow(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusInternalServerError} {
		front := newRecorder(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, p, _ := r.BasicAuth()
			w.WriteHeader(status)
			w.Write([]byte("denied: Authorization: " + r.Header.Get("Authorization") + " token=" + url.QueryEscape(p) + " raw=" + p + "\n"))
		}))
		home := t.TempDir()
		u, _ := url.Parse(front.URL)
		os.WriteFile(filepath.Join(home, ".git-credentials"), []byte("http://robot:"+hostileToken+"@"+u.Host+"\n"), 0o600)
		for name, c := range map[string]Credentials{
			"token":            {RepoURL: front.URL + "/gitops.git", Token: hostileToken},
			"git-credentials":  {Home: home},
			"url with a token": {},
		} {
			f, _ := New(t.TempDir(), c)
			repo := front.URL + "/charts.git"
			if name == "url with a token" {
				repo = "http://oauth2:" + hostileToken + "@" + u.Host + "/charts.git"
			}
			_, _, err := f.Open(context.Background(), repo, "main", "")
			if err == nil {
				t.Fatalf("%d %s: no error", status, name)
			}
			noToken(t, err)
			if strings.Contains(err.Error(), base64.StdEncoding.EncodeToString([]byte("robot:"+hostileToken))) {
				t.Errorf("%d %s: basic credentials in %v", status, name, err)
			}
		}
		if _, creds := front.seen(); len(creds) == 0 {
			t.Fatalf("%d: no credentials were sent: the test proves nothing", status)
		}
	}
}

// A server that accepts connections and never answers ends in an error
// within the listing's bound, not in a hung run.
func TestSilentServerIsBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	f, _ := New(t.TempDir(), Credentials{})
	f.ListTimeout = 200 * time.Millisecond
	done := make(chan error, 1)
	go func() {
		_, _, err := f.Open(context.Background(), "http://"+ln.Addr().String()+"/charts.git", "main", "")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrUnreachable) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("silent server: %v, want ErrUnreachable and the deadline", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the listing did not end at its bound")
	}
}

func TestFileSecrets(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".git-credentials"), []byte("https://u1:gc-Secret-1@a.example.com\nhttps://u2:gc/Secret 2@b.example.com\n"), 0o600)
	os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine c.example.com login u3 password nr-Secret-3\ndefault login u4 password nr-Secret-4\n"), 0o600)
	got := FileSecrets(home)
	want := [][2]string{{"u1", "gc-Secret-1"}, {"u2", "gc/Secret 2"}, {"u3", "nr-Secret-3"}, {"u4", "nr-Secret-4"}}
	if !slices.Equal(got, want) {
		t.Errorf("FileSecrets = %q, want %q", got, want)
	}
}
