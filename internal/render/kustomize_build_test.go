package render

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
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

// TestKustomizeBuildOptionsParity compares, per argocd-cm
// kustomize.buildOptions, our build with the real kustomize binary run as
// Argo CD runs it (`kustomize build <path> <options...>` in the
// repository root), output and errors alike.
func TestKustomizeBuildOptionsParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real kustomize binary")
	}
	bin := toolbin.Path(t, toolbin.Kustomize)
	tree := buildTree()
	for _, tc := range []struct {
		name, dir, options string
		wantErr            bool
	}{
		{"no options", "apps/base", "", false},
		{"outside the root refused by default", "apps/outside", "", true},
		{"load restrictor none", "apps/outside", "--load-restrictor LoadRestrictionsNone", false},
		{"load restrictor with =", "apps/outside", "--load-restrictor=LoadRestrictionsNone", false},
		{"load restrictor root only", "apps/outside", "--load-restrictor LoadRestrictionsRootOnly", true},
		{"bad load restrictor", "apps/base", "--load-restrictor Anything", true},
		{"reorder none", "apps/base", "--reorder none", false},
		{"reorder legacy", "apps/base", "--reorder=legacy", false},
		{"bad reorder", "apps/base", "--reorder sideways", true},
		{"managed-by label", "apps/base", "--enable-managedby-label", false},
		{"enable-helm without charts", "apps/outside", "--enable-helm --load-restrictor LoadRestrictionsNone", false},
		{"charts without enable-helm", "apps/helm", "", true},
		{"plugins without enable-alpha-plugins", "apps/fn", "", true},
		{"unknown flag", "apps/base", "--no-such-flag", true},
		{"a second path", "apps/base", "apps/outside", true},
		{"output to a file", "apps/base", "-o out.yaml", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := kustomizeBuildCLI(t, bin, tree, tc.dir, tc.options)
			got, gotErr := KustomizeBuild(t.Context(), tree, tc.dir, &argo.KustomizeOptions{}, tc.options, nil)
			if (wantErr != nil) != tc.wantErr || (gotErr != nil) != tc.wantErr {
				t.Fatalf("kustomize CLI error = %v\nours = %v\nwant an error: %v", wantErr, gotErr, tc.wantErr)
			}
			if tc.wantErr {
				t.Logf("CLI: %v\nours: %v", wantErr, gotErr)
				return
			}
			// the binary built here is v5.8.2; ours names Argo CD 3.6's
			want = bytes.ReplaceAll(want, []byte("kustomize-v5.8.2"), []byte("kustomize-"+BundledKustomize))
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("differs from kustomize build %s (-cli +ours):\n%s", tc.options, d)
			}
		})
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

// kustomizeBuildCLI writes tree to disk and runs `kustomize build dir
// options...` in its root, as Argo CD's repo-server does.
func kustomizeBuildCLI(t *testing.T, bin string, tree fstest.MapFS, dir, options string) ([]byte, error) {
	t.Helper()
	root := t.TempDir()
	for name, f := range tree {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"build", filepath.Join(root, filepath.FromSlash(dir))}, strings.Fields(options)...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + root} // no helm, no function binary
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("kustomize %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}
