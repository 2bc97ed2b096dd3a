package render

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// buildTree has what each build option changes: a file and a patch
// outside the overlay's root (--load-restrictor), a Namespace listed after
// the objects it holds (--reorder), a Helm chart to inflate
// (--enable-helm) and an exec KRM function (--enable-alpha-plugins).
func buildTree() fstest.MapFS {
	return fstest.MapFS{
		"shared/cm.yaml":               {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\ndata: {a: \"1\"}\n")},
		"shared/patch.yaml":            {Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: web}\nspec: {replicas: 4}\n")},
		"apps/base/kustomization.yaml": {Data: []byte("resources: [deploy.yaml, ns.yaml]\n")},
		"apps/base/deploy.yaml": {Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: web}\n" +
			"spec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n" +
			"    spec: {containers: [{name: web, image: nginx:1.27}]}\n")},
		"apps/base/ns.yaml":               {Data: []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n")},
		"apps/outside/kustomization.yaml": {Data: []byte("resources: [../base, ../../shared/cm.yaml]\npatches: [{path: ../../shared/patch.yaml}]\n")},
		"apps/helm/kustomization.yaml":    {Data: []byte("helmCharts:\n- {name: web, repo: https://charts.example.org, version: 1.0.0, releaseName: web}\n")},
		"apps/fn/kustomization.yaml":      {Data: []byte("resources: [../base]\ntransformers: [fn.yaml]\n")},
		"apps/fn/fn.yaml": {Data: []byte("apiVersion: example.com/v1\nkind: Stamp\nmetadata:\n  name: stamp\n" +
			"  annotations: {config.kubernetes.io/function: \"exec: {path: ./stamp.sh}\"}\n")},
	}
}

// TestKustomizeBuildNeedsTools: --enable-helm with a kustomization that
// inflates a chart needs a KustomizeHelm to answer kustomize's helm
// commands (the renderer always gives one): without it the build is
// ErrNeedsHelm. --enable-alpha-plugins with an exec function would run a
// binary of the repository: ErrNeedsPlugins, which the kustomize renderer
// reports as not rendered, naming the option.
func TestKustomizeBuildNeedsTools(t *testing.T) {
	tree := buildTree()
	_, err := KustomizeBuild(t.Context(), tree, "apps/helm", &argo.KustomizeOptions{}, "--enable-helm", nil)
	if !errors.Is(err, ErrNeedsHelm) {
		t.Errorf("helm chart with --enable-helm: err = %v", err)
	}
	_, err = KustomizeBuild(t.Context(), tree, "apps/fn", &argo.KustomizeOptions{}, "--enable-alpha-plugins --enable-exec", nil)
	if !errors.Is(err, ErrNeedsPlugins) {
		t.Errorf("exec function with --enable-alpha-plugins: err = %v", err)
	}
	req := &argo.Request{Env: "qa", App: "web", Kind: argo.KindKustomize, Path: "apps/fn",
		Source: argo.Source{Path: "apps/fn"}, KustomizeBuildOptions: "--enable-alpha-plugins --enable-exec"}
	_, err = KustomizeSource{}.Render(t.Context(), Input{FS: tree}, req)
	if !errors.Is(err, argo.ErrNotRendered) || !strings.Contains(err.Error(), "needs --enable-alpha-plugins' external plugins") {
		t.Errorf("renderer: err = %v, want not rendered, needing external plugins", err)
	}
}
