package charts

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/testutil/tlsca"
)

// Per-repository credentials and TLS from Helm's repositories.yaml, read
// from a file as `helm repo add` writes it.

const (
	repoUser = "helm-robot"
	repoPass = "repo-Pa55-Xq81"
)

// tlsRepo is a chart repository over TLS whose certificate only ca
// vouches for, behind basic auth (user "" for none); with requireClient
// it serves only clients presenting a certificate of ca.
type tlsRepo struct {
	url  string
	hits *counter
	body []byte // podinfo 6.0.0
}

func newTLSRepo(t *testing.T, ca *tlsca.CA, user, pass string, requireClient bool) *tlsRepo {
	t.Helper()
	r := &tlsRepo{hits: newCounter(), body: makeChart(t, "podinfo", "6.0.0")}
	index, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "entries": map[string]any{
		"podinfo": []any{map[string]any{"apiVersion": "v2", "name": "podinfo", "version": "6.0.0",
			"urls": []string{"charts/podinfo-6.0.0.tgz"}, "digest": sha256Hex(r.body)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(r.hits.wrap(files(map[string][]byte{
		"/stable/index.yaml": index, "/stable/charts/podinfo-6.0.0.tgz": r.body,
	}, user, pass)))
	ca.StartTLS(t, srv, requireClient)
	r.url = srv.URL + "/stable"
	return r
}

// repositoriesFile writes entries as Helm's repositories.yaml and returns
// the credentials CredentialsFromEnv reads from it.
func repositoriesFile(t *testing.T, entries ...map[string]any) *Credentials {
	t.Helper()
	data, err := yaml.Marshal(map[string]any{"apiVersion": "", "generated": "2026-01-02T03:04:05Z", "repositories": entries})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "repositories.yaml")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{EnvRepositoryConfig: p, "HOME": t.TempDir()}
	cr, err := CredentialsFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cr
}

func entry(name, url string, kv ...any) map[string]any {
	e := map[string]any{"name": name, "url": url, "username": "", "password": "", "certFile": "", "keyFile": "",
		"caFile": "", "insecure_skip_tls_verify": false, "pass_credentials_all": false}
	for i := 0; i+1 < len(kv); i += 2 {
		e[kv[i].(string)] = kv[i+1]
	}
	return e
}

func TestRepositoriesYAML(t *testing.T) {
	ca := tlsca.New(t)
	certFile, keyFile := ca.ClientFiles(t, "ci")
	tests := []struct {
		name          string
		requireClient bool
		entry         func(url string) map[string]any
		wantErr       error
		wantMsg       string
		wantAuth      bool // the repository received the credentials
	}{
		{name: "credentials and CA file",
			entry: func(u string) map[string]any {
				return entry("stable", u, "username", repoUser, "password", repoPass, "caFile", ca.File)
			}, wantAuth: true},
		{name: "trailing slash matches, as Helm's urlutil.Equal",
			entry: func(u string) map[string]any {
				return entry("stable", u+"/", "username", repoUser, "password", repoPass, "caFile", ca.File)
			}, wantAuth: true},
		{name: "insecure_skip_tls_verify",
			entry: func(u string) map[string]any {
				return entry("stable", u, "username", repoUser, "password", repoPass, "insecure_skip_tls_verify", true)
			}, wantAuth: true},
		{name: "client certificate", requireClient: true,
			entry: func(u string) map[string]any {
				return entry("stable", u, "username", repoUser, "password", repoPass, "caFile", ca.File,
					"certFile", certFile, "keyFile", keyFile)
			}, wantAuth: true},
		{name: "no client certificate", requireClient: true,
			entry: func(u string) map[string]any {
				return entry("stable", u, "username", repoUser, "password", repoPass, "caFile", ca.File)
			}, wantErr: ErrUnreachable},
		{name: "no CA file: the private CA is not trusted",
			entry: func(u string) map[string]any {
				return entry("stable", u, "username", repoUser, "password", repoPass)
			}, wantErr: ErrUnreachable, wantMsg: "x509: certificate signed by unknown authority; if a private CA signs its certificate, name the CA file as caFile"},
		{name: "an entry of another path of the host is not this repository",
			entry: func(u string) map[string]any {
				return entry("other", strings.TrimSuffix(u, "/stable")+"/other", "username", repoUser, "password", repoPass, "caFile", ca.File)
			}, wantErr: ErrUnreachable, wantMsg: "x509"},
		{name: "wrong password",
			entry: func(u string) map[string]any {
				return entry("stable", u, "username", repoUser, "password", "nope-Wrong-1", "caFile", ca.File)
			}, wantErr: ErrAuth, wantMsg: `repositories.yaml (repository "stable") were rejected`, wantAuth: true},
		{name: "CA file only: no credentials",
			entry:   func(u string) map[string]any { return entry("stable", u, "caFile", ca.File) },
			wantErr: ErrAuth, wantMsg: "helm repo add --username"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := newTLSRepo(t, ca, repoUser, repoPass, tt.requireClient)
			c := &Client{Creds: repositoriesFile(t, tt.entry(repo.url))}
			got, err := c.Fetch(context.Background(), repo.url, "podinfo", "6.0.0")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Fetch = %v, want %v", err, tt.wantErr)
			}
			if err == nil && string(got) != string(repo.body) {
				t.Error("Fetch returned other bytes")
			}
			if err != nil && (!strings.Contains(err.Error(), tt.wantMsg) || strings.Contains(err.Error(), repoPass) ||
				strings.Contains(err.Error(), "nope-Wrong-1")) {
				t.Errorf("error %q: want %q and no password", err, tt.wantMsg)
			}
			if got := repo.hits.sawAuth("/stable/index.yaml"); got != tt.wantAuth {
				t.Errorf("the repository received credentials: %v, want %v", got, tt.wantAuth)
			}
		})
	}
}

// TestPairOnlyForHelmRepoURL: HELM_REPO_USERNAME/PASSWORD go to the
// repositories HELM_REPO_URL names, never to one a GitOps file adds.
func TestPairOnlyForHelmRepoURL(t *testing.T) {
	f := newHTTPFixture(t, repoUser, repoPass)
	attacker := newWitness(t, files(map[string][]byte{"/index.yaml": []byte("apiVersion: v1\nentries: {}\n")}, "", ""))
	ctx := context.Background()

	scoped := &Client{Creds: pairFor(up(repoUser, repoPass), f.repoURL)}
	if err := scoped.HasVersion(ctx, f.repoURL, "podinfo", "6.0.0"); err != nil {
		t.Fatalf("the named repository: %v", err)
	}
	if err := scoped.HasVersion(ctx, attacker.URL, "podinfo", "6.0.0"); !errors.Is(err, ErrChartNotFound) {
		t.Fatalf("the other repository: %v, want ErrChartNotFound", err)
	}
	if n, creds := attacker.seen(); n == 0 || len(creds) > 0 {
		t.Errorf("the other repository got %d requests, credentials %q", n, creds)
	}

	unscoped := &Client{Creds: pairFor(up(repoUser, repoPass))}
	if !unscoped.Creds.Unscoped() {
		t.Error("a pair without HELM_REPO_URL is not reported as unscoped")
	}
	err := unscoped.HasVersion(ctx, f.repoURL, "podinfo", "6.0.0")
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "HELM_REPO_URL does not name this repository") {
		t.Errorf("without HELM_REPO_URL: %v, want ErrAuth saying why", err)
	}
}

func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		prefix, repo string
		want         bool
	}{
		{"https://charts.example.com", "https://charts.example.com/stable", true},
		{"https://charts.example.com/", "https://charts.example.com", true},
		{"https://charts.example.com/team", "https://charts.example.com/team/stable", true},
		{"https://charts.example.com/team", "https://charts.example.com/teamB", false},
		{"https://charts.example.com", "http://charts.example.com", false},       // downgrade
		{"https://charts.example.com", "https://charts.example.com:8443", false}, // another port
		{"https://charts.example.com:443", "https://charts.example.com/x", true}, // default port written out
		{"https://charts.example.com", "https://charts.example.com.evil.net", false},
		{"https://charts.example.com", "https://x:y@evil.net/charts.example.com", false},
		{"https://charts.example.com", "https://sub.charts.example.com", false},
		{"https://charts.example.com", "oci://charts.example.com/x", false},
		{"oci://registry.example.com", "registry.example.com/charts", true},
		{"registry.example.com/team", "oci://registry.example.com/team/charts", true},
		{"oci://registry.example.com/team", "oci://registry.example.com/other", false},
		{"oci://registry.example.com", "oci://registry.example.com:5000/charts", false},
	} {
		r, err := parseRepo(tc.repo)
		if err != nil {
			t.Fatal(err)
		}
		if got := covers(tc.prefix, r); got != tc.want {
			t.Errorf("covers(%s, %s) = %v, want %v", tc.prefix, tc.repo, got, tc.want)
		}
	}
	if _, err := ParsePairURLs("https://charts.example.com, ftp://x"); err == nil {
		t.Error("HELM_REPO_URL with an ftp URL accepted")
	}
	if _, err := ParsePairURLs("https://u:Secret-In-Url9@charts.example.com"); err == nil || strings.Contains(err.Error(), "Secret-In-Url9") {
		t.Errorf("HELM_REPO_URL with credentials: %v", err)
	}
}

// TestRepositoryCredentialsStayHome: an entry's credentials do not follow
// a redirect or a download URL to another host, nor go to a repository
// on another host that asks for them.
func TestRepositoryCredentialsStayHome(t *testing.T) {
	ctx := context.Background()
	f := newHTTPFixture(t, repoUser, repoPass)
	cr := repositoriesFile(t, entry("stable", f.repoURL, "username", repoUser, "password", repoPass))
	if _, err := (&Client{Creds: cr}).Fetch(ctx, f.repoURL, "nginx", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	if f.cdnHits.get(f.cdnPath) == 0 || f.cdnHits.sawAuth(f.cdnPath) {
		t.Errorf("download host: %d requests, credentials %v", f.cdnHits.get(f.cdnPath), f.cdnHits.sawAuth(f.cdnPath))
	}

	asks := newWitness(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="give me yours"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	redirects := httptest.NewServer(http.RedirectHandler(asks.URL+"/index.yaml", http.StatusFound))
	t.Cleanup(redirects.Close)
	cr = repositoriesFile(t, entry("stable", f.repoURL, "username", repoUser, "password", repoPass),
		entry("redirects", redirects.URL, "username", repoUser, "password", repoPass))
	c := &Client{Creds: cr}
	for _, u := range []string{asks.URL, redirects.URL} {
		if err := c.HasVersion(ctx, u, "podinfo", "6.0.0"); !errors.Is(err, ErrAuth) {
			t.Errorf("%s: %v, want ErrAuth", u, err)
		}
	}
	if n, creds := asks.seen(); n != 2 || len(creds) > 0 {
		t.Errorf("the other host got %d requests (want 2), credentials %q", n, creds)
	}
}
