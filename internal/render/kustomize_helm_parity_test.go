//go:build bundled

package render

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

// kustomizeHelmTree has one kustomization per helmCharts feature. The
// chart kept in a chart home is webChart under another name.
func kustomizeHelmTree(s *helmChartServers) fstest.MapFS {
	k := func(body string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(body)} }
	tree := fstest.MapFS{
		"apps/inline/kustomization.yaml": k("helmCharts:\n- name: local\n  releaseName: shop\n  namespace: shop\n" +
			"  valuesInline: {replicas: 3, labels: {team: pay}}\n"),
		"apps/pinned/kustomization.yaml": k("namespace: web\nhelmCharts:\n- name: web\n  repo: " + s.repo +
			"\n  version: 1.0.0\n  releaseName: web\n  namespace: web\n  valuesFile: values-prod.yaml\n  includeCRDs: true\n"),
		"apps/pinned/values-prod.yaml":   k("replicas: 5\nimage: {tag: \"1.28\"}\nextra: prod\n"),
		"apps/latest/kustomization.yaml": k("helmCharts:\n- name: web\n  repo: " + s.repo + "\n  skipTests: true\n"),
		"apps/range/kustomization.yaml":  k("helmCharts:\n- name: web\n  repo: " + s.repo + "\n  version: ~1.0.0\n  releaseName: r\n"),
		"apps/devel/kustomization.yaml":  k("helmCharts:\n- name: web\n  repo: " + s.repo + "\n  devel: true\n  releaseName: d\n"),
		"apps/oci/kustomization.yaml": k("helmCharts:\n- name: web-oci\n  repo: " + s.oci + "\n  version: 3.0.0\n" +
			"  releaseName: o\n  namespace: o\n  skipHooks: true\n  includeCRDs: true\n"),
		"apps/ocilatest/kustomization.yaml": k("helmCharts:\n- name: web-oci\n  repo: " + s.oci + "\n  releaseName: o\n"),
		"apps/merge/kustomization.yaml": k("helmCharts:\n- name: web\n  repo: " + s.repo + "\n  version: 1.1.0\n" +
			"  releaseName: m\n  valuesMerge: merge\n  valuesInline: {extra: inline, labels: {tier: api}}\n" +
			"  additionalValuesFiles: [more.yaml]\n"),
		"apps/twonames/kustomization.yaml": k("helmCharts:\n- {name: web, repo: " + s.repo + ", version: 1.1.0, releaseName: a, nameTemplate: b}\n"),
		"apps/merge/more.yaml":             k("replicas: 7\n"),
		"apps/replace/kustomization.yaml": k("helmCharts:\n- name: web\n  repo: " + s.repo + "\n  version: 1.1.0\n" +
			"  valuesMerge: replace\n  valuesInline: {replicas: 2, image: {repository: httpd, tag: \"2\"}, extra: replaced}\n" +
			"  nameTemplate: '{{ \"tmpl\" | upper | lower }}-name'\n"),
		"apps/caps/kustomization.yaml": k("helmCharts:\n- name: web\n  repo: " + s.repo + "\n  version: 1.0.0\n" +
			"  releaseName: c\n  kubeVersion: \"1.29\"\n  apiVersions: [monitoring.coreos.com/v1]\n"),
		"apps/twice/kustomization.yaml": k("namePrefix: x-\ncommonLabels: {env: qa}\nresources: [cm.yaml]\n" +
			"helmGlobals: {chartHome: vendor}\nhelmCharts:\n" +
			"- {name: web, repo: " + s.repo + ", version: 1.0.3, releaseName: one}\n" +
			"- {name: web, repo: " + s.repo + ", version: 1.0.3, releaseName: two, namespace: two}\n"),
		"apps/twice/cm.yaml":              k("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n"),
		"apps/missing/kustomization.yaml": k("helmCharts:\n- {name: web, repo: " + s.repo + ", version: 9.9.9}\n"),
		"apps/nochart/kustomization.yaml": k("helmCharts:\n- {name: gone, version: 1.0.0}\n"),
	}
	tree["apps/shared/kustomization.yaml"] = k("helmGlobals: {chartHome: ../../vendor}\nhelmCharts:\n- {name: local, releaseName: s}\n")
	tree["apps/sharedvalues/kustomization.yaml"] = k("helmGlobals: {chartHome: ../../vendor}\n" +
		"helmCharts:\n- {name: local, releaseName: s, valuesFile: values.yaml}\n")
	tree["apps/sharedvalues/values.yaml"] = k("replicas: 2\nimage: {repository: nginx, tag: \"1\"}\nlabels: {}\n")
	tree["apps/gen/kustomization.yaml"] = k("generators: [helm.yaml]\n")
	tree["apps/gen/helm.yaml"] = k("apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata: {name: gen}\n" +
		"chartHome: ../../vendor\nname: local\nreleaseName: g\nvaluesFile: values.yaml\n")
	tree["apps/gen/values.yaml"] = k("replicas: 4\nimage: {repository: nginx, tag: \"2\"}\nlabels: {}\n")
	for _, home := range []string{"apps/inline/charts", "vendor"} {
		tree[home+"/local/Chart.yaml"] = k("apiVersion: v2\nname: local\nversion: 0.1.0\n")
		for name, data := range webChart {
			tree[home+"/local/"+name] = k(data)
		}
	}
	return tree
}

// TestKustomizeHelmChartsParity runs the real kustomize with
// --enable-helm and the real helm of each major as its --helm-command,
// as Argo CD's repo-server runs them, on kustomizations with helmCharts,
// and compares our build (helm answered in process by the Helm SDK of
// that major, charts through our chart client) byte for byte.
func TestKustomizeHelmChartsParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real kustomize and helm binaries")
	}
	s := newHelmChartServers(t)
	tree := kustomizeHelmTree(s)
	kust := toolbin.Path(t, toolbin.Kustomize)
	apis := []string{"monitoring.coreos.com/v1", "example.com/v1"}
	// No commas in case names: the temporary paths hold them, and helm
	// splits -f on commas.
	cases := []struct {
		name, dir string
		argo      bool // with the --helm-kube-version and --helm-api-versions Argo CD appends
		wantErr   bool
		options   string // more build options
	}{
		{"inline chart in the chart home", "apps/inline", false, false, ""},
		{"pinned version with a values file and CRDs", "apps/pinned", true, false, ""},
		{"latest stable version without tests", "apps/latest", false, false, ""},
		{"version range", "apps/range", true, false, ""},
		{"devel takes a pre-release", "apps/devel", false, false, ""},
		{"oci registry without hooks", "apps/oci", true, false, ""},
		{"oci registry latest tag", "apps/ocilatest", false, false, ""},
		{"values merge and an additional values file", "apps/merge", false, false, ""},
		{"values replace and a name template", "apps/replace", false, false, ""},
		{"a release name and a name template", "apps/twonames", false, true, ""},
		{"chart capabilities", "apps/caps", false, false, ""},
		{"Argo CD's capabilities override the chart's", "apps/caps", true, false, ""},
		{"one chart twice in a chart home with transformers", "apps/twice", true, false, ""},
		{"version not in the repository", "apps/missing", false, true, ""},
		{"no repository and no chart", "apps/nochart", false, true, ""},
		{"chart home outside the root", "apps/shared", false, true, ""},
		{"chart home outside the root without load restrictor", "apps/shared", true, false, "--load-restrictor LoadRestrictionsNone"},
		{"chart home outside the root with values inside", "apps/sharedvalues", false, false, ""},
		{"chart home of a generator config", "apps/gen", false, false, ""},
	}
	for _, m := range helmMajors {
		helm := toolbin.Path(t, m.tool)
		major := map[string]int{"helm3": 3, "helm4": 4}[m.name]
		for _, tc := range cases {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				h := &KustomizeHelm{Charts: &charts.Client{HTTP: s.client}, Major: major}
				if tc.argo {
					h.KubeVersion, h.APIVersions = "1.31.4", apis
				}
				options := strings.TrimSpace("--enable-helm " + tc.options)
				args := append(append(strings.Fields(options), "--helm-command", helm), argoHelmArgs(options, h)...)
				want, wantErr := kustomizeHelmCLI(t, kust, tree, tc.dir, s.caFile, args)
				got, gotErr := KustomizeBuild(t.Context(), tree, tc.dir, &argo.KustomizeOptions{}, options, h)
				if (wantErr != nil) != tc.wantErr || (gotErr != nil) != tc.wantErr {
					t.Fatalf("kustomize CLI error = %v\nours = %v\nwant an error: %v", wantErr, gotErr, tc.wantErr)
				}
				if tc.wantErr {
					t.Logf("CLI: %v\nours: %v", wantErr, gotErr)
					return
				}
				if d := cmp.Diff(string(want), string(got)); d != "" {
					t.Errorf("differs from kustomize build --enable-helm (-cli +ours):\n%s", d)
				}
				if v := (kustomizeHelmBackend{KustomizeHelm: *h}).Version(); !bytes.Contains(got, []byte("helm: "+v)) {
					t.Errorf("the chart did not render with helm %s:\n%s", v, got)
				}
			})
		}
	}
}

// kustomizeHelmCLI writes tree to disk and runs `kustomize build dir
// args...` in its root, with no helm on PATH and the test servers'
// certificate trusted.
func kustomizeHelmCLI(t *testing.T, bin string, tree fstest.MapFS, dir, caFile string, args []string) ([]byte, error) {
	t.Helper()
	root := writeTree(t, tree)
	cmd := exec.Command(bin, append([]string{"build", filepath.Join(root, filepath.FromSlash(dir))}, args...)...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + root, "SSL_CERT_FILE=" + caFile, "TMPDIR=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("kustomize build %s: %v: %s", dir, err, stderr.String())
	}
	return stdout.Bytes(), nil
}
