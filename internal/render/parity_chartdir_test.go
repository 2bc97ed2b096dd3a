//go:build bundled

package render

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

// chartDirCase is a chart kept in the repository, dependencies vendored:
// what Argo CD renders with `helm template <dir>` and no dependency build.
type chartDirCase struct {
	name    string
	files   map[string]string // below the chart directory
	want    []string          // in the output, so two empty renders cannot agree
	notWant []string
}

func chartDirCases() []chartDirCase {
	deps := "dependencies:\n" +
		"  - {name: alpha, version: 1.0.0, condition: alpha.enabled, import-values: [data]}\n" +
		"  - {name: beta, version: 1.0.0, condition: beta.enabled}\n" +
		"  - {name: twice, version: 1.0.0, alias: again}\n"
	values := "alpha: {enabled: true}\nbeta: {enabled: false}\nagain: {from: parent}\n"
	vendored := withFiles(subchart("alpha", "v1"), subchart("beta", "v1"), subchart("twice", "v1"),
		map[string]string{"values.yaml": values, "templates/cm.yaml": cmTemplate})
	return []chartDirCase{
		{name: "apiVersion v1, dependencies in requirements.yaml", files: withFiles(vendored, map[string]string{
			"Chart.yaml":        "apiVersion: v1\nname: top\nversion: 0.1.0\n",
			"requirements.yaml": deps,
		}), want: []string{"name: rel-alpha", "name: rel-again", "from: \"parent\"", "imported: \"from-alpha\""}, notWant: []string{"rel-beta"}},
		// chartutil.Save drops Chart.yaml's dependencies of a v1 chart
		// (it expects them in requirements.yaml): the disabled one would
		// render from such a package.
		{name: "apiVersion v1, dependencies in Chart.yaml", files: withFiles(vendored, map[string]string{
			"Chart.yaml": "apiVersion: v1\nname: top\nversion: 0.1.0\n" + deps,
		}), want: []string{"name: rel-alpha", "name: rel-again", "imported: \"from-alpha\""}, notWant: []string{"rel-beta"}},
		{name: "apiVersion v1, requirements.lock", files: withFiles(vendored, map[string]string{
			"Chart.yaml":        "apiVersion: v1\nname: top\nversion: 0.1.0\n",
			"requirements.yaml": deps,
			"requirements.lock": "dependencies:\n  - {name: alpha, version: 1.0.0, repository: ''}\ndigest: sha256:0\ngenerated: \"2020-01-01T00:00:00Z\"\n",
		}), want: []string{"name: rel-alpha"}, notWant: []string{"rel-beta"}},
		{name: "apiVersion v2 with dependencies, one of them an archive", files: withFiles(
			subchart("alpha", "v2"), subchart("beta", "v2"),
			map[string]string{
				"Chart.yaml":             "apiVersion: v2\nname: top\nversion: 0.1.0\n" + deps,
				"values.yaml":            values,
				"templates/cm.yaml":      cmTemplate,
				"charts/twice-1.0.0.tgz": "@twice",
			}), want: []string{"name: rel-alpha", "name: rel-again", "imported: \"from-alpha\""}, notWant: []string{"rel-beta"}},
		{name: "helmignore", files: withFiles(subchart("alpha", "v2"), map[string]string{
			"Chart.yaml":                       "apiVersion: v2\nname: top\nversion: 0.1.0\n",
			"values.yaml":                      "from: top\n",
			"templates/cm.yaml":                cmTemplate,
			".helmignore":                      "# comments and blank lines\n\n*.bak\nsecret/\ntemplates/skip-*.yaml\n/notes.txt\ncharts/alpha/templates/drop.yaml\n*.tmp\n",
			"templates/skip-one.yaml":          "not: [valid",
			"templates/cm.yaml.bak":            "not: [valid",
			"templates/nested/x.tmp":           "not: [valid",
			"templates/files.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: files}\ndata:\n{{- range $p, $_ := .Files.Glob \"**\" }}\n  {{ $p | replace \"/\" \"_\" }}: seen\n{{- end }}\n",
			"secret/key.txt":                   "hidden",
			"notes.txt":                        "root notes, ignored",
			"docs/notes.txt":                   "kept: the rule is anchored at the root",
			"charts/alpha/templates/drop.yaml": "not: [valid",
			"charts/alpha/.helmignore":         "templates/own.yaml\n",
			"charts/alpha/templates/own.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: own}\n",
			"templates/.hidden.yaml":           "not: [valid",
			"templates/bom.yaml":               "\xef\xbb\xbfapiVersion: v1\nkind: ConfigMap\nmetadata: {name: bom}\n",
		}), want: []string{"name: rel-top", "name: rel-alpha", "docs_notes.txt: seen", "name: bom"},
			notWant: []string{"secret_key.txt", "\n  notes.txt", "cm.yaml.bak"}},
	}
}

// TestChartDirParity: an in-repo chart renders exactly as `helm template
// <dir>` of the same major renders it (what Argo CD runs when charts/
// holds every dependency): a v1 chart with requirements.yaml or with its
// dependencies in Chart.yaml, a v2 chart with dependencies (one an
// archive), and a chart with .helmignore rules. The chart is packaged by
// PackageChartDir, the production path, never by chartutil.Save.
func TestChartDirParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real helm binaries; run without -short")
	}
	for _, m := range helmMajors {
		t.Run(m.name, func(t *testing.T) {
			bin := toolbin.Path(t, m.tool)
			for _, tc := range chartDirCases() {
				t.Run(tc.name, func(t *testing.T) {
					tree := chartDirTree(t, tc.files)
					want, wantErr := helmTemplateDir(t, bin, tree, "charts/top")
					tgz, err := PackageChartDir(context.Background(), tree, "charts/top", nil)
					if err != nil {
						t.Fatalf("PackageChartDir: %v (helm template: %v)", err, wantErr)
					}
					got, gotErr := recovering(m.render)(context.Background(), Request{Chart: tgz, ReleaseName: "rel", Namespace: "ns"})
					if wantErr != nil || gotErr != nil {
						t.Fatalf("helm template: %v\nours: %v", wantErr, gotErr)
					}
					if d := cmp.Diff(string(want), string(got)); d != "" {
						t.Errorf("differs from helm template <dir> (-helm +ours):\n%s", d)
					}
					for _, w := range tc.want {
						if !strings.Contains(string(got), w) {
							t.Errorf("output lacks %q:\n%s", w, got)
						}
					}
					for _, w := range tc.notWant {
						if strings.Contains(string(got), w) {
							t.Errorf("output has %q:\n%s", w, got)
						}
					}
				})
			}
		})
	}
}

// chartDirTree puts files under charts/top of a repository tree; "@name"
// is subchart name packaged as an archive.
func chartDirTree(t *testing.T, files map[string]string) fstest.MapFS {
	t.Helper()
	tree := fstest.MapFS{}
	for name, data := range files {
		if sub, ok := strings.CutPrefix(data, "@"); ok {
			data = string(packRaw(t, writeChartDir(t, subchartFiles(sub, "v2"))))
		}
		tree["charts/top/"+name] = &fstest.MapFile{Data: []byte(data)}
	}
	return tree
}

// helmTemplateDir runs `helm template <dir>` on the tree written to disk,
// with the arguments Argo CD passes.
func helmTemplateDir(t *testing.T, bin string, tree fstest.MapFS, dir string) ([]byte, error) {
	t.Helper()
	root := writeTree(t, tree)
	home := t.TempDir()
	cmd := exec.Command(bin, "template", ".", "--name-template", "rel", "--namespace", "ns",
		"--kube-version", DefaultKubeVersion(), "--include-crds")
	cmd.Dir = filepath.Join(root, filepath.FromSlash(dir))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"HELM_CACHE_HOME=" + home + "/cache", "HELM_CONFIG_HOME=" + home + "/config",
		"HELM_DATA_HOME=" + home + "/data", "KUBECONFIG=" + home + "/no-kubeconfig"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}
