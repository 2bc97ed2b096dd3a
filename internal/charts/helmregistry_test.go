package charts

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/tlsca"
)

// Registry credentials from Helm's registry config and docker's
// config.json, credential helpers included, against a registry on
// loopback that wants a token and speaks TLS with a private CA.

const (
	regRefresh = "refresh-Tok-77Qw"
	regBearer  = "registry-Tok-55Zx"
)

// tlsRegistry is a token-auth registry over TLS; ca's file reaches the
// Client through an oci:// entry of repositories.yaml.
func tlsRegistry(t *testing.T, ca *tlsca.CA, auth func(http.Handler) http.Handler) *ociFixture {
	return fillOCI(t, newTestRegistryWith(t, auth, func(s *httptest.Server) { ca.StartTLS(t, s, false) }))
}

func writeJSON(t *testing.T, p string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func basic(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}

// helper installs docker-credential-<name> on PATH: it answers get for
// addr with username and secret, and "not found" for any other address.
func helper(t *testing.T, name, addr, username, secret string) {
	t.Helper()
	dir := t.TempDir()
	script := fmt.Sprintf(`#!/bin/sh
[ "$1" = get ] || exit 2
addr=$(cat)
if [ "$addr" = %q ]; then
  printf '{"ServerURL":"%%s","Username":%q,"Secret":%q}' "$addr"
  exit 0
fi
echo "credentials not found in native keychain"
exit 1
`, addr, username, secret)
	if err := os.WriteFile(filepath.Join(dir, "docker-credential-"+name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestRegistryConfigs(t *testing.T) {
	ca := tlsca.New(t)
	tests := []struct {
		name         string
		server       *tokenAuth
		helm, docker func(host string) any // the two files' contents; nil: no file
		setup        func(t *testing.T, host string)
		noCA         bool
		wantErr      error
		wantMsg      string
		wantGrant    string // the token request's grant: "" basic GET, "refresh_token" POST, "none" no request
		remembered   []string
	}{
		{name: "helm registry login (auth)", server: &tokenAuth{user: regUser, pass: regPass},
			helm: func(h string) any {
				return map[string]any{"auths": map[string]any{h: map[string]any{"auth": basic(regUser, regPass)}}}
			}},
		{name: "docker config after an empty helm config", server: &tokenAuth{user: regUser, pass: regPass},
			helm: func(h string) any { return map[string]any{"auths": map[string]any{}} },
			docker: func(h string) any {
				return map[string]any{"auths": map[string]any{h: map[string]any{"auth": basic(regUser, regPass)}}}
			}},
		{name: "legacy URL key and username/password fields", server: &tokenAuth{user: regUser, pass: regPass},
			docker: func(h string) any {
				return map[string]any{"auths": map[string]any{"https://" + h + "/v1/": map[string]any{"username": regUser, "password": regPass}}}
			}},
		{name: "identitytoken", server: &tokenAuth{refresh: regRefresh}, wantGrant: "refresh_token",
			docker: func(h string) any {
				return map[string]any{"auths": map[string]any{h: map[string]any{"auth": "", "identitytoken": regRefresh}}}
			}},
		{name: "registrytoken", server: &tokenAuth{user: "nobody", pass: "never"}, wantGrant: "none",
			docker: func(h string) any {
				return map[string]any{"auths": map[string]any{h: map[string]any{"registrytoken": regToken}}}
			}},
		{name: "credHelpers", server: &tokenAuth{user: regUser, pass: regPass}, remembered: []string{regPass},
			setup:  func(t *testing.T, h string) { helper(t, "gp-test", h, regUser, regPass) },
			docker: func(h string) any { return map[string]any{"credHelpers": map[string]any{h: "gp-test"}} }},
		{name: "credsStore answering <token>", server: &tokenAuth{refresh: regRefresh}, wantGrant: "refresh_token", remembered: []string{regRefresh},
			setup:  func(t *testing.T, h string) { helper(t, "gp-test", h, "<token>", regRefresh) },
			docker: func(h string) any { return map[string]any{"credsStore": "gp-test"} }},
		{name: "a helper that holds nothing for the registry", server: &tokenAuth{user: regUser, pass: regPass},
			setup: func(t *testing.T, h string) { helper(t, "gp-test", "elsewhere.example.com", regUser, regPass) },
			docker: func(h string) any {
				return map[string]any{"credsStore": "gp-test", "auths": map[string]any{h: map[string]any{"auth": basic(regUser, regPass)}}}
			},
			wantErr: ErrAuth, wantMsg: "helm registry login"},
		{name: "a helper that is not installed", server: &tokenAuth{user: regUser, pass: regPass},
			docker:  func(h string) any { return map[string]any{"credsStore": "gp-not-installed"} },
			wantMsg: "credential helper docker-credential-gp-not-installed"},
		{name: "credentials of another registry only", server: &tokenAuth{user: regUser, pass: regPass},
			helm: func(h string) any {
				return map[string]any{"auths": map[string]any{"registry.example.com": map[string]any{"auth": basic(regUser, regPass)}}}
			},
			wantErr: ErrAuth, wantMsg: "helm registry login"},
		{name: "wrong password", server: &tokenAuth{user: regUser, pass: regPass},
			helm: func(h string) any {
				return map[string]any{"auths": map[string]any{h: map[string]any{"auth": basic(regUser, "nope-Wrong-1")}}}
			},
			wantErr: ErrAuth, wantMsg: "config.json were rejected"},
		{name: "no CA for the registry", server: &tokenAuth{user: regUser, pass: regPass}, noCA: true,
			helm: func(h string) any {
				return map[string]any{"auths": map[string]any{h: map[string]any{"auth": basic(regUser, regPass)}}}
			},
			wantErr: ErrUnreachable, wantMsg: "x509"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tlsRegistry(t, ca, tt.server.front)
			host, home := f.host(), t.TempDir()
			if tt.setup != nil {
				tt.setup(t, host)
			}
			env := map[string]string{"HOME": home, "DOCKER_CONFIG": filepath.Join(home, "docker")}
			if tt.helm != nil {
				writeJSON(t, filepath.Join(home, ".config", "helm", "registry", "config.json"), tt.helm(host))
			}
			if tt.docker != nil {
				writeJSON(t, filepath.Join(home, "docker", "config.json"), tt.docker(host))
			}
			if !tt.noCA {
				env[EnvRepositoryConfig] = filepath.Join(home, "repos.yaml")
				os.WriteFile(env[EnvRepositoryConfig], []byte("repositories:\n- name: reg\n  url: oci://"+host+"\n  caFile: "+ca.File+"\n"), 0o600)
			}
			cr, err := CredentialsFromEnv(func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var remembered []string
			cr.Remember = func(_, s string) { mu.Lock(); remembered = append(remembered, s); mu.Unlock() }
			c := &Client{Creds: cr}
			got, err := c.Fetch(context.Background(), host+"/charts", "podinfo", "6.2.0")
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) || tt.wantMsg == "" && err != nil {
				t.Fatalf("Fetch = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				for _, leak := range []string{regPass, "nope-Wrong-1", regRefresh, basic(regUser, regPass)} {
					if strings.Contains(err.Error(), leak) {
						t.Errorf("error %q shows %q", err, leak)
					}
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("error %q lacks %q", err, tt.wantMsg)
				}
				return
			}
			if tt.wantMsg != "" {
				t.Fatalf("no error, want %q", tt.wantMsg)
			}
			if string(got) != string(f.charts["podinfo@6.2.0"]) {
				t.Error("Fetch returned other bytes")
			}
			checkGrant(t, tt.server, tt.wantGrant)
			if !slices.Equal(remembered, tt.remembered) {
				t.Errorf("remembered %q, want %q", remembered, tt.remembered)
			}
		})
	}
}

func checkGrant(t *testing.T, a *tokenAuth, want string) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if want == "none" {
		if len(a.reqs) != 0 {
			t.Errorf("token service asked %d times, want none", len(a.reqs))
		}
		return
	}
	if len(a.reqs) != 1 || a.reqs[0].Get("grant_type") != want {
		t.Errorf("token requests %v, want one with grant %q", a.reqs, want)
	}
}

// TestRegistryCredentialsStayHome: a registry's stored credentials (from
// a file or a helper) reach neither another registry that asks for them,
// nor the storage host its blobs redirect to.
func TestRegistryCredentialsStayHome(t *testing.T) {
	var storage *witness
	home := fillOCI(t, newTestRegistry(t, func(h http.Handler) http.Handler {
		authed := basicOnly(h)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/blobs/") && r.Header.Get("Authorization") != "" {
				http.Redirect(w, r, storage.URL+r.URL.Path, http.StatusTemporaryRedirect)
				return
			}
			authed.ServeHTTP(w, r)
		})
	}))
	storage = newWitness(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, home.backend.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	asks := newWitness(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="give me yours"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	askHost := strings.TrimPrefix(asks.URL, "http://")
	helper(t, "gp-home", home.host(), regUser, regPass)
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "config.json"), map[string]any{
		"auths":       map[string]any{"registry.example.com": map[string]any{"auth": basic("x", "other-Secret-3")}},
		"credHelpers": map[string]any{home.host(): "gp-home"},
	})
	cr, err := CredentialsFromEnv(func(k string) string { return map[string]string{"DOCKER_CONFIG": dir}[k] })
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{Creds: cr}
	if _, err := c.Fetch(context.Background(), home.host()+"/charts", "podinfo", "6.0.0"); err != nil {
		t.Fatal(err)
	}
	if err := c.HasVersion(context.Background(), askHost+"/charts", "podinfo", "6.0.0"); !errors.Is(err, ErrAuth) {
		t.Errorf("the other registry: %v, want ErrAuth", err)
	}
	for name, w := range map[string]*witness{"storage": storage, "other registry": asks} {
		if n, creds := w.seen(); n == 0 || len(creds) > 0 {
			t.Errorf("%s: %d requests, credentials %q", name, n, creds)
		}
	}
}

func TestCredentialsFromEnv(t *testing.T) {
	home := t.TempDir()
	repos := "repositories:\n- name: stable\n  url: https://charts.example.com\n  username: u\n  password: repo-Secret-11\n"
	os.MkdirAll(filepath.Join(home, ".config", "helm", "registry"), 0o700)
	os.WriteFile(filepath.Join(home, ".config", "helm", "repositories.yaml"), []byte(repos), 0o600)
	writeJSON(t, filepath.Join(home, ".config", "helm", "registry", "config.json"), map[string]any{"auths": map[string]any{"r.example.com": map[string]any{"auth": basic("u", "helm-Secret-22")}}})
	writeJSON(t, filepath.Join(home, ".docker", "config.json"), map[string]any{"auths": map[string]any{"d.example.com": map[string]any{"identitytoken": "docker-Secret-33"}}})
	env := map[string]string{"HOME": home, EnvUsername: "ci", EnvPassword: "pair-Secret-44", EnvPairURL: "https://a.example.com, oci://b.example.com/x"}
	getenv := func(k string) string { return env[k] }
	cr, err := CredentialsFromEnv(getenv)
	if err != nil {
		t.Fatal(err)
	}
	var secrets []string
	for _, s := range cr.Secrets() {
		secrets = append(secrets, s[1])
	}
	slices.Sort(secrets)
	if want := []string{"docker-Secret-33", "helm-Secret-22", "pair-Secret-44", "repo-Secret-11"}; !slices.Equal(secrets, want) {
		t.Errorf("secrets %q, want %q", secrets, want)
	}
	if len(cr.PairURLs) != 2 || cr.Unscoped() {
		t.Errorf("HELM_REPO_URL read as %q", cr.PairURLs)
	}

	// HELM_CONFIG_HOME, then XDG_CONFIG_HOME, as helmpath orders them
	for _, v := range []string{"HELM_CONFIG_HOME", "XDG_CONFIG_HOME"} {
		dir := t.TempDir()
		p := filepath.Join(dir, "repositories.yaml")
		if v == "XDG_CONFIG_HOME" {
			p = filepath.Join(dir, "helm", "repositories.yaml")
		}
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("repositories:\n- name: via\n  url: https://via.example.com\n"), 0o600)
		env[v] = dir
		cr, err := CredentialsFromEnv(getenv)
		if err != nil || len(cr.Repositories) != 1 || cr.Repositories[0].Name != "via" {
			t.Errorf("%s: %v %+v", v, err, cr)
		}
		delete(env, v)
	}

	// broken files: a one-line error naming the file, never its secrets
	for name, body := range map[string]string{
		"repositories.yaml": "repositories:\n- name: x\n  password: broken-Secret-55\n  insecure_skip_tls_verify: broken-Secret-55\n",
		"config.json":       `{"auths": {"x": {"auth": "broken-Secret-55"}}, "credsStore": 7}`,
	} {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, []byte(body), 0o600)
		e := map[string]string{EnvRepositoryConfig: p}
		if name == "config.json" {
			e = map[string]string{EnvRegistryConfig: p}
		}
		_, err := CredentialsFromEnv(func(k string) string { return e[k] })
		if err == nil || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), "broken-Secret-55") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestIdentityTokenStaysHome: an identity token travels in the body of
// the OAuth2 POST to the realm, where no header rule reaches it. A realm
// on the registry's host that answers with a 307 (which resends the
// body) to another host is refused, and a realm on another host gets an
// anonymous GET: neither sees the token.
func TestIdentityTokenStaysHome(t *testing.T) {
	for _, tc := range []struct {
		name    string
		realm   func(r *http.Request, elsewhere string) string // the challenge's realm
		wantErr string
	}{
		{name: "realm redirects the POST to another host",
			realm:   func(r *http.Request, _ string) string { return "http://" + r.Host + "/token" },
			wantErr: "redirect to another host refused"},
		{name: "realm on another host",
			realm:   func(_ *http.Request, elsewhere string) string { return elsewhere + "/token" },
			wantErr: "the credentials were not sent there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			elsewhere := newWitness(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, `{"details":"no"}`, http.StatusUnauthorized)
			}))
			f := newOCIFixture(t, func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/token" {
						http.Redirect(w, r, other(elsewhere.URL)+"/token", http.StatusTemporaryRedirect)
						return
					}
					w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q,service="test-registry"`, tc.realm(r, other(elsewhere.URL))))
					http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
				})
			})
			dir := t.TempDir()
			writeJSON(t, filepath.Join(dir, "config.json"), map[string]any{
				"auths": map[string]any{f.host(): map[string]any{"identitytoken": regRefresh}}})
			cr, err := CredentialsFromEnv(func(k string) string { return map[string]string{"DOCKER_CONFIG": dir}[k] })
			if err != nil {
				t.Fatal(err)
			}
			err = (&Client{Creds: cr}).HasVersion(context.Background(), f.host()+"/charts", "podinfo", "6.0.0")
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), regRefresh) {
				t.Errorf("HasVersion = %v, want an error saying %q, without the token", err, tc.wantErr)
			}
			n, creds := elsewhere.seen()
			if tc.name == "realm on another host" && n == 0 {
				t.Fatal("the foreign realm was never asked: the test proves nothing")
			}
			for _, c := range creds {
				if strings.Contains(c, regRefresh) {
					t.Errorf("another host got the identity token: %q", c)
				}
			}
		})
	}
}
