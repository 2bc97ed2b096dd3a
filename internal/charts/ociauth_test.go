package charts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	regUser  = "robot$ci"
	regPass  = "pa55-w0rd"
	regToken = "tok-3f9a1c"
)

// tokenAuth is a registry front doing the distribution token flow: /v2/
// requests need "Bearer <token>"; /token hands the token out for basic
// credentials (or to anyone when user is "", like a public registry).
type tokenAuth struct {
	user, pass  string
	accessToken bool   // answer {"access_token": ...} as OAuth2 servers do
	refresh     string // an identity token it takes in an OAuth2 refresh_token POST

	mu   sync.Mutex
	reqs []url.Values // queries of token requests that got a token
}

func (a *tokenAuth) front(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			a.serveToken(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+regToken {
			repo, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v2/"), "/tags/")
			repo, _, _ = strings.Cut(repo, "/manifests/")
			repo, _, _ = strings.Cut(repo, "/blobs/")
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(
				`Bearer realm="%s://%s/token",service="test-registry",scope="repository:%s:pull"`, scheme, r.Host, repo))
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (a *tokenAuth) serveToken(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		if r.ParseForm() != nil || a.refresh == "" || r.PostForm.Get("grant_type") != "refresh_token" ||
			r.PostForm.Get("refresh_token") != a.refresh || r.PostForm.Get("service") != "test-registry" {
			http.Error(w, `{"details":"invalid refresh token"}`, http.StatusUnauthorized)
			return
		}
		a.mu.Lock()
		a.reqs = append(a.reqs, url.Values{"scope": r.PostForm["scope"], "grant_type": {"refresh_token"}})
		a.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"access_token": regToken, "expires_in": 300})
		return
	}
	if a.user != "" {
		u, p, ok := r.BasicAuth()
		if !ok || u != a.user || p != a.pass {
			http.Error(w, `{"details":"incorrect username or password"}`, http.StatusUnauthorized)
			return
		}
	}
	a.mu.Lock()
	a.reqs = append(a.reqs, r.URL.Query())
	a.mu.Unlock()
	key := "token"
	if a.accessToken {
		key = "access_token"
	}
	json.NewEncoder(w).Encode(map[string]any{key: regToken, "expires_in": 300})
}

func basicOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != regUser || p != regPass {
			w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func TestOCITokenFlow(t *testing.T) {
	tests := []struct {
		name    string
		server  *tokenAuth
		auth    Auth
		wantErr error
		wantMsg string
	}{
		{name: "credentials for a token", server: &tokenAuth{user: regUser, pass: regPass}, auth: up(regUser, regPass)},
		{name: "access_token field", server: &tokenAuth{user: regUser, pass: regPass, accessToken: true}, auth: up(regUser, regPass)},
		{name: "anonymous token", server: &tokenAuth{}},
		{name: "no credentials", server: &tokenAuth{user: regUser, pass: regPass}, wantErr: ErrAuth, wantMsg: "helm registry login"},
		{name: "wrong password", server: &tokenAuth{user: regUser, pass: regPass}, auth: up(regUser, "nope-nope"), wantErr: ErrAuth, wantMsg: "rejected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newOCIFixture(t, tt.server.front)
			c := &Client{Creds: pairFor(tt.auth, "oci://"+f.host()+"/charts")}
			ctx := context.Background()
			repo := f.host() + "/charts"
			err := c.HasVersion(ctx, repo, "podinfo", "6.2.0")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("HasVersion = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				msg := err.Error()
				if !strings.Contains(msg, tt.wantMsg) || strings.Contains(msg, "nope-nope") || strings.Contains(msg, regPass) {
					t.Errorf("error %q: want %q and no password", msg, tt.wantMsg)
				}
				return
			}
			if _, err := c.Versions(ctx, repo, "podinfo"); err != nil {
				t.Fatal(err)
			}
			got, err := c.Fetch(ctx, repo, "podinfo", "6.2.0")
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(got, f.charts["podinfo@6.2.0"]) {
				t.Error("Fetch returned other bytes")
			}
			// One token serves every request for the repository.
			want := []url.Values{{"service": {"test-registry"}, "scope": {"repository:charts/podinfo:pull"}}}
			if diff := cmp.Diff(want, tt.server.reqs); diff != "" {
				t.Errorf("token requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOCIBasicChallenge(t *testing.T) {
	f := newOCIFixture(t, basicOnly)
	ctx := context.Background()
	repo := "oci://" + f.host() + "/charts"
	if err := (&Client{}).HasVersion(ctx, repo, "podinfo", "6.0.0"); !errors.Is(err, ErrAuth) {
		t.Errorf("without credentials: %v, want ErrAuth", err)
	}
	if err := (&Client{Creds: pairFor(up(regUser, "bad"), repo)}).HasVersion(ctx, repo, "podinfo", "6.0.0"); !errors.Is(err, ErrAuth) {
		t.Errorf("wrong password: %v, want ErrAuth", err)
	}
	c := &Client{Creds: pairFor(up(regUser, regPass), repo)}
	got, err := c.Fetch(ctx, repo, "podinfo", "6.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(got, f.charts["podinfo@6.0.0"]) {
		t.Error("Fetch returned other bytes")
	}
}
