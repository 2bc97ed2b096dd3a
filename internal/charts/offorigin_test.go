package charts

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// witness is a server on another origin that records every credential it
// is sent, and optionally serves what next serves.
type witness struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  int
	creds []string // Authorization headers, URL userinfo and request bodies received
}

func newWitness(t *testing.T, next http.Handler) *witness {
	w := &witness{}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.reqs++
		if a := r.Header.Get("Authorization"); a != "" {
			w.creds = append(w.creds, a)
		}
		if r.URL.User != nil {
			w.creds = append(w.creds, r.URL.User.String())
		}
		// a form body (an OAuth2 refresh token, a password grant)
		if body, _ := io.ReadAll(r.Body); len(body) > 0 {
			w.creds = append(w.creds, "body: "+string(body))
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		w.mu.Unlock()
		if next == nil {
			http.NotFound(rw, r)
			return
		}
		next.ServeHTTP(rw, r)
	}))
	t.Cleanup(w.Close)
	return w
}

func (w *witness) seen() (int, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reqs, append([]string(nil), w.creds...)
}

// other is rawURL's host name spelled differently: 127.0.0.1 and
// localhost are two hosts as far as credentials go.
func other(rawURL string) string { return strings.Replace(rawURL, "127.0.0.1", "localhost", 1) }

// TestHTTPRepoRedirectKeepsCredentialsHome: a repository redirecting its
// index or an archive to another port of the same host name. Go keeps
// Authorization there (it compares host names only).
func TestHTTPRepoRedirectKeepsCredentialsHome(t *testing.T) {
	const user, pass = "ci-bot", "redirect-pa55"
	for _, file := range []string{"/stable/index.yaml", "/stable/charts/podinfo-6.0.0.tgz"} {
		t.Run(file, func(t *testing.T) {
			f := newHTTPFixture(t, user, pass)
			repo, _ := url.Parse(f.repoURL)
			target := &url.URL{Scheme: "http", Host: repo.Host}
			elsewhere := newWitness(t, httputil.NewSingleHostReverseProxy(target))
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == file {
					http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
					return
				}
				httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)
			_, err := (&Client{Creds: pairFor(up(user, pass), front.URL)}).Fetch(context.Background(), front.URL+"/stable", "podinfo", "6.0.0")
			n, creds := elsewhere.seen()
			if n == 0 {
				t.Fatalf("redirect not followed (err %v): the test proves nothing", err)
			}
			if len(creds) > 0 {
				t.Errorf("the other origin got credentials: %q", creds)
			}
			if err != nil && strings.Contains(err.Error(), pass) {
				t.Errorf("password in %v", err)
			}
		})
	}
}

// TestOCIBlobRedirectKeepsTokenHome: registries send blob downloads to a
// storage host; neither the registry token nor the basic credentials may
// follow.
func TestOCIBlobRedirectKeepsTokenHome(t *testing.T) {
	for name, front := range map[string]func(http.Handler) http.Handler{
		"bearer": (&tokenAuth{user: regUser, pass: regPass}).front,
		"basic":  basicOnly,
	} {
		t.Run(name, func(t *testing.T) {
			var storage *witness
			f := newOCIFixture(t, func(h http.Handler) http.Handler {
				authed := front(h)
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if strings.Contains(r.URL.Path, "/blobs/") && r.Header.Get("Authorization") != "" {
						http.Redirect(w, r, storage.URL+r.URL.Path, http.StatusTemporaryRedirect)
						return
					}
					authed.ServeHTTP(w, r)
				})
			})
			backend, _ := url.Parse(f.backend.URL)
			storage = newWitness(t, httputil.NewSingleHostReverseProxy(backend))
			c := &Client{Creds: pairFor(up(regUser, regPass), "oci://"+f.host())}
			got, err := c.Fetch(context.Background(), f.host()+"/charts", "podinfo", "6.0.0")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(f.charts["podinfo@6.0.0"]) {
				t.Error("wrong bytes")
			}
			n, creds := storage.seen()
			if n == 0 {
				t.Fatal("blob redirect not followed: the test proves nothing")
			}
			if len(creds) > 0 {
				t.Errorf("the storage host got %q", creds)
			}
		})
	}
}

// TestOCIRealmOnAnotherHost: a registry whose challenge names a token
// realm on another host does not get the credentials sent there.
func TestOCIRealmOnAnotherHost(t *testing.T) {
	realm := newWitness(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != regUser || p != regPass {
			http.Error(w, `{"details":"incorrect username or password"}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"token": %q}`, regToken)
	}))
	f := newOCIFixture(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+regToken {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="%s/token",service="x"`, other(realm.URL)))
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	err := (&Client{Creds: pairFor(up(regUser, regPass), f.host())}).HasVersion(context.Background(), f.host()+"/charts", "podinfo", "6.0.0")
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "not its own host or domain") {
		t.Errorf("error %v: want ErrAuth naming the foreign realm", err)
	}
	n, creds := realm.seen()
	if n == 0 {
		t.Fatal("the realm was never asked for a token: the test proves nothing")
	}
	if len(creds) > 0 {
		t.Errorf("the realm on another host got %q", creds)
	}
	if err != nil && (strings.Contains(err.Error(), regPass) || strings.Contains(err.Error(), base64.StdEncoding.EncodeToString([]byte(regUser+":"+regPass)))) {
		t.Errorf("credentials in %v", err)
	}
}

// TestOCIRealmOnTheSameHost: another port of the registry's own host
// name gets them (a registry and its token service side by side).
func TestOCIRealmOnTheSameHost(t *testing.T) {
	realm := newWitness(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != regUser || p != regPass {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"token": %q}`, regToken)
	}))
	f := newOCIFixture(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+regToken {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="%s/token",service="x"`, realm.URL))
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	if err := (&Client{Creds: pairFor(up(regUser, regPass), f.host())}).HasVersion(context.Background(), f.host()+"/charts", "podinfo", "6.0.0"); err != nil {
		t.Fatal(err)
	}
}

func TestRealmMayGetCredentials(t *testing.T) {
	for _, tc := range []struct {
		registry, realm string
		want            bool
	}{
		{"https://registry-1.docker.io", "https://auth.docker.io/token", true},
		{"https://registry.gitlab.example.com", "https://gitlab.example.com/jwt/auth", true},
		{"https://ghcr.io", "https://ghcr.io/token", true},
		{"https://registry.example.com", "http://registry.example.com/token", false}, // cleartext
		{"https://registry.example.com", "https://evil.example.net/token", false},
		{"https://alice.github.io", "https://mallory.github.io/token", false}, // github.io is a public suffix
		{"https://registry.example.com", "https://example.com.evil.net/token", false},
		{"http://127.0.0.1:5000", "http://127.0.0.1:5001/token", true},
		{"http://127.0.0.1:5000", "http://localhost:5001/token", false},
		{"https://10.0.0.1", "https://10.0.0.2/token", false},
	} {
		reg, _ := url.Parse(tc.registry)
		realm, _ := url.Parse(tc.realm)
		if got := realmMayGetCredentials(reg, realm); got != tc.want {
			t.Errorf("%s -> %s: %v, want %v", tc.registry, tc.realm, got, tc.want)
		}
	}
}

// TestRepoURLPasswordsThatBreakParsing: userinfo is masked before parsing
// can fail on it.
func TestRepoURLPasswordsThatBreakParsing(t *testing.T) {
	for _, repoURL := range []string{
		"oci://robot:pa/ss-Secret9@registry.example.com/charts",
		"robot:pa/ss-Secret9@registry.example.com/charts",
		"https://robot:pa#ss-Secret9@charts.example.com/stable",
		"https://robot:pa ss-Secret9@charts.example.com/stable",
		"https://robot:pa%zzss-Secret9@charts.example.com/stable",
	} {
		err := (&Client{}).HasVersion(context.Background(), repoURL, "x", "1.0.0")
		if err == nil {
			continue
		}
		for _, leak := range []string{"Secret9", "pa/ss", "pa#ss", "pa ss"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%s: %q in %v", repoURL, leak, err)
			}
		}
	}
}
