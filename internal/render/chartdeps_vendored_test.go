package render

import (
	"context"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/gitops-promote/gitops-promote/internal/charts"
)

const depTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
data:
  version: {{ .Chart.Version | quote }}
  from: {{ .Values.from | default "chart" | quote }}
`

// writeDepChart saves chart name@version into dir as `helm package` would.
func writeDepChart(t *testing.T, dir, name, version string) string {
	t.Helper()
	ch, err := loader.LoadFiles([]*loader.BufferedFile{
		{Name: "Chart.yaml", Data: []byte("apiVersion: v2\nname: " + name + "\nversion: " + version + "\n")},
		{Name: "templates/cm.yaml", Data: []byte(depTemplate)},
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := chartutil.Save(ch, dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A chart whose dependencies are all in charts/ is packaged as it is:
// nothing is resolved or fetched, as Argo CD runs no dependency build.
func TestChartDependenciesVendored(t *testing.T) {
	tgz, err := os.ReadFile(writeDepChart(t, t.TempDir(), "dep-a", "1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	tree := fstest.MapFS{
		"c/Chart.yaml":             {Data: []byte("apiVersion: v2\nname: c\nversion: 1.0.0\ndependencies:\n- {name: dep-a, version: ^9, repository: 'https://nowhere.invalid'}\n")},
		"c/charts/dep-a-1.0.0.tgz": {Data: tgz},
	}
	out, err := PackageChartDir(context.Background(), tree, "c", &charts.Client{LocalDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rendered, err := Helm(context.Background(), Request{Chart: out, ReleaseName: "r"})
	if err != nil || !strings.Contains(string(rendered), "name: r-dep-a") {
		t.Fatalf("render: %v\n%s", err, rendered)
	}
}

// A repository named "@name" or "alias:name" refers to Argo CD's
// repository settings, which are not in the GitOps repository: the
// render says so instead of guessing.
func TestChartDependenciesNamedRepository(t *testing.T) {
	for _, repo := range []string{"@stable", "alias:stable"} {
		tree := fstest.MapFS{"c/Chart.yaml": {Data: []byte("apiVersion: v2\nname: c\nversion: 1.0.0\ndependencies:\n- {name: x, version: 1.0.0, repository: '" + repo + "'}\n")}}
		_, err := PackageChartDir(context.Background(), tree, "c", &charts.Client{LocalDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "names repository "+repo) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v", repo, err)
		}
	}
}
