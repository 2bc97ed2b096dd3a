package render

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func kustomizeTree(overlay string) fstest.MapFS {
	return fstest.MapFS{
		"apps/base/kustomization.yaml": {Data: []byte("resources: [deployment.yaml]\nlabels:\n- pairs: {app: web}\n")},
		"apps/base/deployment.yaml": {Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n" +
			"spec:\n  replicas: 1\n  template:\n    spec:\n      containers: [{name: web, image: nginx:1.0}]\n")},
		"apps/prod/kustomization.yaml": {Data: []byte(overlay)},
		"apps/prod/patch.yaml":         {Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n")},
		"apps/prod/app.env":            {Data: []byte("MODE=prod\n")},
		"unrelated/secret.txt":         {Data: []byte("not copied\n")},
	}
}

// An overlay on a base in the repository: resources, labels, a strategic
// merge patch, an image override and a generated ConfigMap with its hash
// suffix, as `kustomize build apps/prod` prints them.
func TestKustomizeOverlay(t *testing.T) {
	fsys := kustomizeTree(`resources: [../base]
namePrefix: prod-
patches: [{path: patch.yaml}]
images: [{name: nginx, newTag: "1.25"}]
configMapGenerator: [{name: web-env, envs: [app.env]}]
`)
	out, err := Kustomize(fsys, "apps/prod")
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: v1
data:
  MODE: prod
kind: ConfigMap
metadata:
  name: prod-web-env-`
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("output does not start with the generated ConfigMap:\n%s", out)
	}
	for _, s := range []string{"name: prod-web\n", "replicas: 3\n", "image: nginx:1.25\n", "app: web\n"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	// the build is deterministic: same tree, same bytes
	again, err := Kustomize(fsys, "apps/prod")
	if err != nil || !cmp.Equal(out, again) {
		t.Errorf("second build differs (err %v)", err)
	}
}

func TestKustomizeRefusals(t *testing.T) {
	cases := []struct {
		name, overlay string
		offline       bool
		want          string
	}{
		{"remote base", "resources: [../base, 'https://github.com/org/repo//deploy?ref=v1']\n", true, "remote base"},
		{"scp-like base", "resources: ['git@github.com:org/repo.git']\n", true, "remote base"},
		{"token in a remote base", "resources: ['https://ci:glpat-SECRET42@gitlab.example.com/org/repo.git//deploy']\n", true, "https://***@gitlab.example.com/org/repo.git//deploy"},
		{"missing path", "resources: [../nowhere]\n", true, "../nowhere is not in the repository"},
		{"outside the repository", "resources: [../../../etc]\n", false, "outside the repository"},
		{"file outside the root", "resources: [../base/deployment.yaml]\n", false, "kustomize build apps/prod"},
		{"helm charts", "helmCharts: [{name: x, repo: 'https://charts.example.com', version: 1.0.0}]\n", false, "kustomize build apps/prod"},
		{"bad yaml", "resources: [\n", false, "apps/prod/kustomization.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Kustomize(kustomizeTree(tc.overlay), "apps/prod")
			if err == nil || errors.Is(err, ErrOffline) != tc.offline || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want offline %v and %q", err, tc.offline, tc.want)
			}
			if strings.Contains(err.Error(), "SECRET42") {
				t.Errorf("error carries the token: %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestCoveredBy(t *testing.T) {
	roots := map[string]bool{"apps/prod": true, "apps/prod/components/x": true, "apps/base": true, ".": false}
	for dir, want := range map[string]bool{"apps/prod": false, "apps/prod/components/x": true, "apps/base": false, ".": false} {
		if got := coveredBy(dir, roots); got != want {
			t.Errorf("coveredBy(%q) = %v, want %v", dir, got, want)
		}
	}
	if !coveredBy("apps/base", map[string]bool{".": true}) {
		t.Error("the repository root covers every directory")
	}
}
