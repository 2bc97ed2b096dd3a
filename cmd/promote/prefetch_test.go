package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestChartCredentialsOnlyToChartRepositories: the chart indexes fetched
// while the plan is built are those of the Helm sources the plan pins.
// The repoURL of a git source (here the GitOps repository itself, as the
// values ref) is never asked for an index.yaml, and so never sent the
// chart repository's credentials.
func TestChartCredentialsOnlyToChartRepositories(t *testing.T) {
	var mu sync.Mutex
	var hits []string
	gitHost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_, _, creds := r.BasicAuth()
		hits = append(hits, r.Method+" "+r.URL.Path+map[bool]string{true: " with credentials"}[creds])
		http.NotFound(w, r)
	}))
	t.Cleanup(gitHost.Close)
	f := newFleet(t, func(dir string) {
		files, _ := filepath.Glob(filepath.Join(dir, "argocd", "*", "*.yaml"))
		for _, p := range append(files, filepath.Join(dir, ".promote.yaml")) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.ReplaceAll(data, []byte("https://gitlab.example.com"), []byte(gitHost.URL))
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	env := map[string]string{"HELM_REPO_USERNAME": "charts", "HELM_REPO_PASSWORD": "chart-secret", "HELM_REPO_URL": f.Charts.URL}
	res := f.run(t, env, "apply", "--from", "preprod", "--to", "prod")
	if res.code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", res.code, res.out, res.errOut)
	}
	if *f.Requests == 0 {
		t.Fatal("the chart repository was never asked: the check did not run")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hits) > 0 {
		t.Errorf("the git host was asked %v", hits)
	}
}
