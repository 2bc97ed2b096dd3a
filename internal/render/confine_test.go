package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// confineMarker is outsideFiles outside every repository these tests render:
// in a file beside it, in $HOME's files and in the process's environment
// (/proc/self/environ). It must show nowhere.
const confineMarker = "CONFINE-MARKER-93f1c2"

// outsideFiles is what a test put outside the repository, and a record of
// the files there to tell whether any was created or changed.
type outsideFiles struct {
	home, outside, file string
	before              map[string]string
}

func plant(t *testing.T) *outsideFiles {
	t.Helper()
	p := &outsideFiles{home: t.TempDir(), outside: t.TempDir()}
	p.file = filepath.Join(p.outside, "secret.txt")
	writeTestFile(t, p.file, "token: "+confineMarker+"\n")
	writeTestFile(t, filepath.Join(p.home, ".docker", "config.json"), `{"auths": {"r": {"auth": "`+confineMarker+`"}}}`)
	writeTestFile(t, filepath.Join(p.home, ".config", "keep.txt"), "unchanged\n")
	t.Setenv("HOME", p.home)
	t.Setenv("CONFINE_TEST_TOKEN", confineMarker)
	p.before = p.snapshot(t)
	return p
}

// snapshot maps every file and directory below home and outside to its
// content (or "dir").
func (p *outsideFiles) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range []string{p.home, p.outside} {
		err := filepath.WalkDir(root, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				out[f] = "dir"
				return nil
			}
			data, err := os.ReadFile(f)
			out[f] = string(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// untouched fails t when a file or directory outside the repository was
// created, changed or removed.
func (p *outsideFiles) untouched(t *testing.T) {
	t.Helper()
	after := p.snapshot(t)
	for f, c := range after {
		if b, ok := p.before[f]; !ok || b != c {
			t.Errorf("%s was created or changed outside the repository", f)
		}
	}
	for f := range p.before {
		if _, ok := after[f]; !ok {
			t.Errorf("%s was removed", f)
		}
	}
}

// noMarker fails t when the marker, in any case, is in s.
func noMarker(t *testing.T, what string, s string) {
	t.Helper()
	if strings.Contains(strings.ToLower(s), strings.ToLower(confineMarker)) {
		t.Errorf("%s shows what is outside the repository:\n%s", what, s)
	}
}

func writeTestFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// localChart is a chart kept in the repository, at apps/web/charts/local.
var localChart = fstest.MapFS{
	"apps/web/charts/local/Chart.yaml":        {Data: []byte("apiVersion: v2\nname: local\nversion: 1.0.0\n")},
	"apps/web/charts/local/values.yaml":       {Data: []byte("greeting: hi\n")},
	"apps/web/charts/local/templates/cm.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: local}\ndata: {greeting: {{ .Values.greeting | quote }}}\n")},
	"shared/extra.txt":                        {Data: []byte("inside the repository\n")},
}

// withKustomization is localChart with apps/web's kustomization.
func withKustomization(body string) fstest.MapFS {
	tree := fstest.MapFS{"apps/web/kustomization.yaml": {Data: []byte(body)}}
	for k, v := range localChart {
		tree[k] = v
	}
	return tree
}

// fakeCharts serves one archive for every chart asked for.
type fakeCharts struct{ archive []byte }

func (f fakeCharts) Fetch(context.Context, string, string, string) ([]byte, error) {
	return f.archive, nil
}

// chartArchive is a chart archive whose Chart.yaml names name, written
// by hand: Helm's own tools refuse to package such a name.
func chartArchive(t *testing.T, dir, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for f, data := range map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: " + name + "\nversion: 1.0.0\n",
		"config.json": `{"auths": {}}`,
	} {
		if err := tw.WriteHeader(&tar.Header{Name: dir + "/" + f, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const noneOptions = "--enable-helm --load-restrictor LoadRestrictionsNone"

func renderKustomize(t *testing.T, tree fs.FS, options string, fetch ChartFetcher) ([]byte, error) {
	t.Helper()
	req := &argo.Request{Env: "qa", App: "web", Kind: argo.KindKustomize, Path: "apps/web", Source: argo.Source{Path: "apps/web"},
		KustomizeBuildOptions: options, KustomizeHelmMajor: 4}
	return KustomizeSource{}.Render(t.Context(), Input{FS: tree, Charts: fetch}, req)
}

// TestKustomizeLoadRestrictionsNoneStaysInTheRepository: with
// --load-restrictor LoadRestrictionsNone a kustomization reads any file
// of the repository, and nothing else: the environment, a file beside the
// repository, $HOME's. Each way out fails the app naming the path, never
// its content, and leaves every file outside as it was.
func TestKustomizeLoadRestrictionsNoneStaysInTheRepository(t *testing.T) {
	p := plant(t)
	up := strings.Repeat("../", 24)
	chart := "helmCharts:\n- {name: local, releaseName: web}\n"
	ok := withKustomization(chart + "configMapGenerator:\n- {name: extra, files: [../../shared/extra.txt]}\n")
	out, err := renderKustomize(t, ok, noneOptions, nil)
	if err != nil || !strings.Contains(string(out), "inside the repository") || !strings.Contains(string(out), "greeting: hi") {
		t.Fatalf("a file elsewhere in the repository: %v\n%s", err, out)
	}
	cases := []struct{ name, body, want string }{
		{"environ", "configMapGenerator:\n- {name: env, files: [/proc/self/environ]}\n", "/proc/self/environ"},
		{"environ as env file", "configMapGenerator:\n- {name: env, envs: [/proc/self/environ]}\n", "/proc/self/environ"},
		{"file beside the repository", "configMapGenerator:\n- {name: f, files: [" + p.file + "]}\n", p.file},
		{"climbing out", "configMapGenerator:\n- {name: f, files: [" + up + p.file[1:] + "]}\n", p.file},
		{"secret generator", "secretGenerator:\n- {name: s, files: [" + p.home + "/.docker/config.json]}\n", ".docker/config.json"},
		{"patch file", "patches:\n- {path: " + p.file + "}\n", p.file},
		{"resource outside", "resources: [" + up + p.file[1:] + "]\n", "outside the repository"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, opts := range []string{noneOptions, "--load-restrictor LoadRestrictionsNone"} {
				body := tc.body
				if strings.Contains(opts, "helm") {
					body = chart + body
				}
				out, err := renderKustomize(t, withKustomization(body), opts, nil)
				if err == nil {
					t.Fatalf("%s: rendered:\n%s", opts, out)
				}
				noMarker(t, "output", string(out))
				noMarker(t, "error", err.Error())
				if !strings.Contains(err.Error(), tc.want) || strings.Contains(opts, "helm") && !errors.Is(err, ErrOutsideRepo) {
					t.Errorf("%s: err = %v, want it to name %s", opts, err, tc.want)
				}
				t.Logf("%s: %v", opts, err)
			}
		})
	}
	p.untouched(t)
}

// TestKustomizeHelmChartsStayInTheRepository: what a helmCharts entry
// names (chart home, chart name, release name, value files) and what a
// pulled archive names stay inside the staged copy: refused before
// kustomize runs, or by the helm commands this process answers.
func TestKustomizeHelmChartsStayInTheRepository(t *testing.T) {
	p := plant(t)
	up := strings.Repeat("../", 24)
	cases := []struct {
		name, body, want string
		is               error
		archive          []byte
	}{
		{"absolute chart home", "helmGlobals: {chartHome: " + p.home + "}\nhelmCharts:\n- {name: .docker, repo: https://charts.example.org, releaseName: web}\n",
			"chartHome " + p.home, ErrOutsideRepo, nil},
		{"chart home climbing out", "helmGlobals: {chartHome: " + up + p.home[1:] + "}\nhelmCharts:\n- {name: .docker, releaseName: web}\n",
			"chartHome " + up, ErrOutsideRepo, nil},
		{"chart name with ..", "helmCharts:\n- {name: ../../../" + p.home[1:] + "/.docker, releaseName: web}\n", "is not a chart name", ErrChartName, nil},
		{"chart name with a separator", "helmCharts:\n- {name: a/b, releaseName: web}\n", `chart name "a/b"`, ErrChartName, nil},
		{"release name", "helmCharts:\n- {name: local, releaseName: ../../etc}\n", `release name "../../etc"`, nil, nil},
		{"values file", "helmCharts:\n- {name: local, releaseName: web, valuesFile: /proc/self/environ}\n", "valuesFile /proc/self/environ", ErrOutsideRepo, nil},
		{"additional values file", "helmCharts:\n- {name: local, releaseName: web, additionalValuesFiles: [" + p.file + "]}\n",
			"additionalValuesFiles " + p.file, ErrOutsideRepo, nil},
		{"version with a separator", "helmCharts:\n- {name: evil, repo: https://charts.example.org, version: 1/../../../x, releaseName: web}\n",
			"is not a chart version", nil, nil},
		{"old generator field", "helmChartInflationGenerator:\n- {chartName: local, chartHome: " + p.home + "}\n", "chartHome " + p.home, ErrOutsideRepo, nil},
		{"archive named ..", "helmCharts:\n- {name: evil, repo: https://charts.example.org, version: 1.0.0, releaseName: web}\n",
			`chart name ".."`, ErrChartName, chartArchive(t, "evil", "..")},
		{"archive named .docker", "helmCharts:\n- {name: evil, repo: https://charts.example.org, version: 1.0.0, releaseName: web}\n",
			"evil", nil, chartArchive(t, "evil", ".docker")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var fetch ChartFetcher
			if tc.archive != nil {
				fetch = fakeCharts{tc.archive}
			}
			out, err := renderKustomize(t, withKustomization(tc.body), noneOptions, fetch)
			if err == nil {
				t.Fatalf("rendered:\n%s", out)
			}
			t.Log(err)
			noMarker(t, "error", err.Error())
			if !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want %q (%v)", err, tc.want, tc.is)
			}
		})
	}
	p.untouched(t)
}

// TestKustomizeHelmGeneratorsChecked: a HelmChartInflationGenerator given
// through generators, in a file or built from a directory whose patch
// rewrites the chart's name, is checked as kustomize will run it.
func TestKustomizeHelmGeneratorsChecked(t *testing.T) {
	p := plant(t)
	gen := "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata: {name: g}\nname: NAME\nreleaseName: web\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"file", map[string]string{"apps/web/kustomization.yaml": "generators: [gen.yaml]\n",
			"apps/web/gen.yaml": strings.ReplaceAll(gen, "NAME", "../../"+p.home[1:]+"/.docker")}, "is not a chart name"},
		{"file with a chart home outside", map[string]string{"apps/web/kustomization.yaml": "generators: [gen.yaml]\n",
			"apps/web/gen.yaml": strings.ReplaceAll(gen, "NAME", ".docker") + "chartHome: " + p.home + "\n"}, "chartHome " + p.home},
		{"patched in a directory", map[string]string{"apps/web/kustomization.yaml": "generators: [gen]\n",
			"apps/web/gen/kustomization.yaml": "resources: [g.yaml]\npatches:\n- target: {kind: HelmChartInflationGenerator}\n" +
				"  patch: '[{\"op\": \"replace\", \"path\": \"/name\", \"value\": \"../../x\"}]'\n",
			"apps/web/gen/g.yaml": strings.ReplaceAll(gen, "NAME", "local")}, `chart name "../../x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := withKustomization("")
			for f, data := range tc.files {
				tree[f] = &fstest.MapFile{Data: []byte(data)}
			}
			out, err := renderKustomize(t, tree, noneOptions, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q\n%s", err, tc.want, out)
			}
			noMarker(t, "error", err.Error())
		})
	}
	p.untouched(t)
}
