package argo

import (
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// TestResolveHelmMajor: a Helm source renders with the Helm major of the
// configured Argo CD version (Helm 4 by default, since 3.6 is).
func TestResolveHelmMajor(t *testing.T) {
	src := Source{RepoURL: "https://charts.example.org", Chart: "echo", TargetRevision: "0.1.0", Kind: KindHelm}
	app := App{Env: "prod", Name: "echo", Namespace: "shop", Sources: []Source{src}}
	for version, want := range map[string]int{"": 4, "3.6": 4, "3.5": 4, "3.4": 3, "2.14": 3} {
		cfg := &config.Config{RepoURL: "https://git.example.org/fleet.git", Argo: config.ArgoCD{Version: version}}
		req, err := app.Resolve(src, ResolveOptions{Config: cfg, FS: fstest.MapFS{}, Revision: "0.1.0"})
		if err != nil {
			t.Fatalf("argocd.version %q: %v", version, err)
		}
		if req.Helm.HelmMajor != want {
			t.Errorf("argocd.version %q: HelmMajor %d, want %d", version, req.Helm.HelmMajor, want)
		}
	}
}
