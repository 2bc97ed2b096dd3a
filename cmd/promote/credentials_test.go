package main

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitserver"
)

// The credentials half of issue 9 (item 9), through the real promote
// binary: a token or repository password is sent only to the host it was
// configured for, and is never printed, in any encoding.

const (
	credToken    = "glpat-Cred-Token-Zz81"
	credHelmPass = "helm-Cred-Pass-Yy72"
)

func credForms() []string {
	var out []string
	for _, s := range []string{credToken, credHelmPass} {
		out = append(out, s, url.QueryEscape(s), base64.StdEncoding.EncodeToString([]byte(s)))
	}
	return append(out,
		base64.StdEncoding.EncodeToString([]byte("oauth2:"+credToken)),
		base64.StdEncoding.EncodeToString([]byte("robot:"+credHelmPass)))
}

// elsewhere records every credential sent to it; it is another origin.
type elsewhere struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  int
	creds []string
}

func newElsewhere(t *testing.T, next http.Handler) *elsewhere {
	e := &elsewhere{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.reqs++
		for k, vs := range r.Header {
			for _, v := range vs {
				for _, f := range credForms() {
					if strings.Contains(v, f) {
						e.creds = append(e.creds, k+": "+v)
					}
				}
			}
		}
		e.mu.Unlock()
		if next == nil {
			http.Error(w, "nothing here", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *elsewhere) check(t *testing.T, what string) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.reqs == 0 {
		t.Errorf("%s: the other host was never asked: the check proves nothing", what)
	}
	if len(e.creds) > 0 {
		t.Errorf("%s: credentials sent to another host: %q", what, e.creds)
	}
}

func noCredentialPrinted(t *testing.T, r result) {
	t.Helper()
	for _, f := range credForms() {
		if strings.Contains(r.out+r.errOut, f) {
			t.Errorf("%q printed:\nstdout: %s\nstderr: %s", f, r.out, r.errOut)
		}
	}
}

func TestCredentialsStayHome(t *testing.T) {
	t.Run("git host redirects elsewhere", func(t *testing.T) {
		f := newFleet(t)
		other := newElsewhere(t, nil)
		srv := gitserver.New(t, f.Remote, credToken, gitserver.WithWrap(func(http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
			})
		}))
		gitRun(t, f.Dir, "remote", "set-url", "origin", srv.URL)
		r := runPromote(t, f.Dir, processEnv(t, "GIT_TOKEN="+credToken),
			"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push")
		if r.code != 1 {
			t.Errorf("exit %d, want 1\nstderr: %s", r.code, r.errOut)
		}
		other.check(t, "git")
		noCredentialPrinted(t, r)
	})

	t.Run("git host echoes the Authorization header", func(t *testing.T) {
		for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusInternalServerError} {
			f := newFleet(t)
			srv := gitserver.New(t, f.Remote, credToken, gitserver.WithWrap(func(http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_, p, _ := r.BasicAuth()
					w.WriteHeader(status)
					w.Write([]byte("denied: Authorization: " + r.Header.Get("Authorization") + "\ntoken=" + url.QueryEscape(p) + "\n"))
				})
			}))
			gitRun(t, f.Dir, "remote", "set-url", "origin", srv.URL)
			r := runPromote(t, f.Dir, processEnv(t, "GIT_TOKEN="+credToken),
				"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push")
			if r.code != 1 {
				t.Errorf("%d: exit %d, want 1", status, r.code)
			}
			noCredentialPrinted(t, r)
		}
	})

	t.Run("remote URL password that breaks parsing", func(t *testing.T) {
		for _, pw := range []string{"glpat/Cred-Token-Zz81", "glpat#Cred-Token-Zz81", "glpat Cred-Token-Zz81"} {
			f := newFleet(t)
			gitRun(t, f.Dir, "remote", "set-url", "origin", "https://oauth2:"+pw+"@127.0.0.1:9/g/r.git")
			r := runPromote(t, f.Dir, processEnv(t), "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push")
			if r.code != 1 {
				t.Errorf("%q: exit %d, want 1", pw, r.code)
			}
			if strings.Contains(r.out+r.errOut, "Cred-Token-Zz81") {
				t.Errorf("%q printed:\n%s", pw, r.errOut)
			}
		}
	})

	t.Run("gitlab api redirects elsewhere", func(t *testing.T) {
		f := newFleet(t)
		other := newElsewhere(t, nil)
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
		}))
		t.Cleanup(front.Close)
		r := runPromote(t, f.Dir, processEnv(t, "GITLAB_TOKEN="+credToken, "CI_API_V4_URL="+front.URL+"/api/v4", "CI_PROJECT_ID=42"),
			"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--merge-request")
		if r.code != 1 {
			t.Errorf("exit %d, want 1\nstderr: %s", r.code, r.errOut)
		}
		if !strings.Contains(r.errOut, "redirect to another host refused") {
			t.Errorf("stderr does not say why: %s", r.errOut)
		}
		noCredentialPrinted(t, r)
		other.mu.Lock()
		defer other.mu.Unlock()
		if other.reqs != 0 {
			t.Errorf("the other host got %d request(s)", other.reqs)
		}
	})

	t.Run("chart repository redirects elsewhere", func(t *testing.T) {
		f := newFleet(t)
		target, _ := url.Parse(f.Charts.URL)
		other := newElsewhere(t, httputil.NewSingleHostReverseProxy(target))
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, _ := r.BasicAuth(); u != "robot" || p != credHelmPass {
				w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
		}))
		t.Cleanup(front.Close)
		manifests, _ := filepath.Glob(filepath.Join(f.Dir, "argocd", "*", "*.yaml"))
		for _, m := range manifests {
			data, _ := os.ReadFile(m)
			os.WriteFile(m, []byte(strings.ReplaceAll(string(data), f.Charts.URL, front.URL)), 0o644)
		}
		gitRun(t, f.Dir, "commit", "-qam", "charts behind a redirect")
		r := runPromote(t, f.Dir, processEnv(t, "HELM_REPO_USERNAME=robot", "HELM_REPO_PASSWORD="+credHelmPass, "HELM_REPO_URL="+front.URL),
			"apply", "--from", "qa", "--to", "preprod")
		if r.code != 0 {
			t.Errorf("exit %d, want 0 (the index is public where it moved)\nstderr: %s", r.code, r.errOut)
		}
		other.check(t, "chart repository")
		noCredentialPrinted(t, r)
	})
}
