package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

// Why the released helm 3 and helm 4 disagree on a corpus case; the
// "Helm 3 and Helm 4" section of docs/manifestdiff.md lists them all.
const (
	webhookOrder = "helm 4 installs webhook configurations before custom kinds, helm 3 sorts them among them"
	multiDocFile = "helm 4 merges every document of a value file, helm 3 reads the first"
)

// Public charts of the corpus, read from Go module zips at test time.
const (
	helm4Module       = "helm.sh/helm/v4"
	helm4ModuleVer    = helm4Version
	certManagerModule = "github.com/cert-manager/cert-manager"
	certManagerVer    = "v1.21.2"
	kyvernoModule     = "github.com/kyverno/kyverno"
	kyvernoVer        = "v1.19.1"
)

// platformCases run testdata/parity/platform, our own chart with every
// feature at once: subcharts (one aliased, one disabled, one library),
// CRDs in crds/ of the chart and of a subchart, hooks of each kind with
// weights, lookup, .Capabilities checks, tpl, required, fail, a values
// schema, import-values, globals, .Files, and kinds helm must reorder.
func platformCases(t *testing.T) []corpusCase {
	ch := chartBytes(t, filepath.Join("..", "parity", "platform"))
	caps := []string{"monitoring.coreos.com/v1", "monitoring.coreos.com/v1/ServiceMonitor"}
	// The chart has a null in values.yaml and webhook configurations
	// beside a custom kind, on purpose.
	const differ = "helm 4 drops values.yaml nulls before templates see them (hasKey); " + webhookOrder
	return []corpusCase{
		{name: "platform/defaults", req: Request{Chart: ch}, majorsDiffer: differ},
		{name: "platform/argo inputs", majorsDiffer: differ, req: Request{Chart: ch, ReleaseName: "pay", Namespace: "prod",
			KubeVersion: "1.31.4", APIVersions: caps,
			ValueFiles: []NamedBytes{{"values/prod.yaml", []byte("replicas: 4\nimage: {tag: '2.1.7'}\nreplica: {enabled: true}\n")}},
			Values:     []byte("settings: {retries: 5, nested: {dropped: null}}\nextraLabels: {tier: null}\n"),
			Parameters: []Parameter{{Name: "global.team", Value: "core"}, {Name: "settings.timeout", Value: "45s", ForceString: true}},
		}},
		{name: "platform/old kube, no policy/v1", majorsDiffer: differ, req: Request{Chart: ch, KubeVersion: "1.25.0",
			APIVersions: []string{"extensions/v1beta1/Ingress"}, Parameters: []Parameter{{Name: "features.legacyIngress", Value: "true"}}}},
		{name: "platform/skip crds tests schema", majorsDiffer: differ, req: Request{Chart: ch, SkipCrds: true, SkipTests: true,
			SkipSchemaValidation: true, Parameters: []Parameter{{Name: "replicas", Value: "99"}}}},
		{name: "platform/helm version", req: Request{Chart: ch, Parameters: []Parameter{{Name: "showHelmVersion", Value: "true"}}},
			majorsDiffer: differ + "; .Capabilities.HelmVersion is v3.22.0 or v4.3.1"},
		{name: "platform/schema violation", req: Request{Chart: ch, Parameters: []Parameter{{Name: "replicas", Value: "99"}}},
			wantErr: errBoth},
		{name: "platform/required missing", req: Request{Chart: ch, SkipSchemaValidation: true,
			Parameters: []Parameter{{Name: "image.name", Value: ""}}}, wantErr: errBoth},
		{name: "platform/fail", req: Request{Chart: ch, Parameters: []Parameter{{Name: "replicas", Value: "13"}}},
			wantErr: errBoth},
		{name: "platform/kube below chart range", req: Request{Chart: ch, KubeVersion: "1.24.9"}, wantErr: errBoth},
	}
}

// helmTestChartCases run the test charts that ship in the helm v4 module
// (a superset of v3's): pkg/cmd/testdata/testcharts, the chart-util
// fixtures, and the apiVersion v3 fixtures only Helm 4 loads.
func helmTestChartCases(t *testing.T) []corpusCase {
	root := toolbin.Module(t, helm4Module, helm4ModuleVer)
	var cases []corpusCase
	for _, c := range helmTestCharts {
		p := filepath.Join(root, filepath.FromSlash(c.path))
		var ch []byte
		switch {
		case filepath.Ext(p) == ".tgz":
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			ch = data
		case c.raw:
			ch = packRaw(t, p)
		default:
			ch = packageDir(t, p)
		}
		cases = append(cases, corpusCase{name: "helm/" + c.path, req: Request{Chart: ch, ReleaseName: "rel", Namespace: "ns"},
			wantErr: c.wantErr, majorsDiffer: c.majorsDiffer})
	}
	return cases
}

// certManagerCases run cert-manager's chart: CRDs as templates, webhook
// configurations, a post-install hook, .Capabilities checks, a schema.
func certManagerCases(t *testing.T) []corpusCase {
	dir := filepath.Join(toolbin.Module(t, certManagerModule, certManagerVer), "deploy", "charts", "cert-manager")
	ch := packageDir(t, dir)
	return []corpusCase{
		{name: "cert-manager/defaults", req: Request{Chart: ch, ReleaseName: "cert-manager", Namespace: "cert-manager"}},
		{name: "cert-manager/crds monitoring", req: Request{Chart: ch, ReleaseName: "cm", Namespace: "security",
			KubeVersion: "1.30.1", APIVersions: []string{"monitoring.coreos.com/v1", "monitoring.coreos.com/v1/ServiceMonitor"},
			Values: []byte("crds: {enabled: true}\nprometheus: {enabled: true, servicemonitor: {enabled: true}}\n" +
				"podDisruptionBudget: {enabled: true}\nwebhook: {replicaCount: 2}\nstartupapicheck: {enabled: true}\n")},
			majorsDiffer: webhookOrder},
		{name: "cert-manager/schema violation", req: Request{Chart: ch, Values: []byte("replicaCount: many\n")}, wantErr: errBoth},
	}
}

// kyvernoCases run kyverno's chart with each of its own CI value files:
// vendored subcharts (crds, grafana), hooks, lookup, .Capabilities
// checks. Its three repository dependencies are not vendored in the
// module and are dropped, as `helm dependency build` would need the
// network for them.
func kyvernoCases(t *testing.T) []corpusCase {
	dir := copyModuleDir(t, filepath.Join(toolbin.Module(t, kyvernoModule, kyvernoVer), "charts", "kyverno"))
	dropRemoteDependencies(t, dir)
	ch := packageDir(t, dir)
	var cases []corpusCase
	for _, vf := range valueFiles(t, filepath.Join(dir, "ci")) {
		c := corpusCase{name: "kyverno/" + vf.Name, req: Request{Chart: ch, ReleaseName: "kyverno",
			Namespace: "kyverno", KubeVersion: "1.33.2", ValueFiles: []NamedBytes{vf}}}
		if vf.Name == "openreports-values" {
			// Four documents, one test case each; the last is invalid on
			// purpose, and only helm 4 reads it.
			c.wantErr, c.majorsDiffer = errHelm4, multiDocFile
		}
		cases = append(cases, c)
	}
	return cases
}

// helmTestCharts are the helm module's fixtures the corpus renders; raw
// marks charts the Helm 3 SDK refuses to package (bad metadata, apiVersion
// v3), packed as they are. Fixtures that render nothing (NOTES only, or
// no templates) are left out: two empty outputs prove nothing.
var helmTestCharts = []struct {
	path         string
	raw          bool
	wantErr      errOn
	majorsDiffer string
}{
	{path: "pkg/cmd/testdata/testcharts/alpine"},
	{path: "pkg/cmd/testdata/testcharts/chart-bad-requirements", raw: true, wantErr: errBoth},
	{path: "pkg/cmd/testdata/testcharts/chart-bad-type", raw: true, wantErr: errBoth},
	// An apiVersion v1 chart with dependencies in Chart.yaml: packaging
	// with the Helm 3 SDK drops them, so it is packed as it is.
	{path: "pkg/cmd/testdata/testcharts/chart-missing-deps", raw: true, wantErr: errBoth},
	{path: "pkg/cmd/testdata/testcharts/chart-with-bad-subcharts", raw: true, wantErr: errBoth},
	{path: "pkg/cmd/testdata/testcharts/chart-with-deprecated-api"},
	{path: "pkg/cmd/testdata/testcharts/chart-with-lib-dep"},
	{path: "pkg/cmd/testdata/testcharts/chart-with-only-crds"},
	{path: "pkg/cmd/testdata/testcharts/chart-with-schema"},
	{path: "pkg/cmd/testdata/testcharts/chart-with-schema-and-subchart", wantErr: errBoth},
	{path: "pkg/cmd/testdata/testcharts/chart-with-secret"},
	{path: "pkg/cmd/testdata/testcharts/chart-with-template-lib-archive-dep"},
	{path: "pkg/cmd/testdata/testcharts/chart-with-template-lib-dep"},
	{path: "pkg/cmd/testdata/testcharts/chart-with-template-with-invalid-template-expr", wantErr: errBoth},
	{path: "pkg/cmd/testdata/testcharts/compressedchart-0.1.0.tgz", wantErr: errBoth},
	{path: "pkg/cmd/testdata/testcharts/empty"},
	{path: "pkg/cmd/testdata/testcharts/issue-7233", wantErr: errBoth},
	{path: "pkg/cmd/testdata/testcharts/issue-9027",
		majorsDiffer: "null in a parent chart's values.yaml deletes a subchart default in helm 3, not in helm 4"},
	{path: "pkg/cmd/testdata/testcharts/issue1979", wantErr: errBoth},
	{path: "pkg/cmd/testdata/testcharts/lib-chart", raw: true, wantErr: errBoth},
	{path: "pkg/cmd/testdata/testcharts/object-order"},
	{path: "pkg/cmd/testdata/testcharts/oci-dependent-chart-0.1.0.tgz"},
	{path: "pkg/cmd/testdata/testcharts/signtest"},
	{path: "pkg/cmd/testdata/testcharts/subchart"},
	{path: "pkg/chart/v2/util/testdata/chart-with-dependency-aliased-twice",
		majorsDiffer: "a chart aliased twice renders its own subchart once per alias in helm 4, once in helm 3"},
	{path: "pkg/chart/v2/util/testdata/chart-with-import-from-aliased-dependencies",
		majorsDiffer: "import-values from an aliased dependency works in helm 4, gives null in helm 3"},
	{path: "pkg/chart/v2/util/testdata/dependent-chart-alias", wantErr: errBoth},
	{path: "pkg/chart/v2/util/testdata/dotdotname", raw: true, wantErr: errBoth},
	{path: "pkg/chart/v2/util/testdata/slashinname", raw: true, wantErr: errBoth},
	{path: "internal/chart/v3/util/testdata/chart-with-dependency-aliased-twice", raw: true, wantErr: errHelm4,
		majorsDiffer: "helm 3 renders an apiVersion v3 chart as v2; helm 4.3.1 panics on its dependencies"},
	{path: "internal/chart/v3/util/testdata/subpop", raw: true, wantErr: errHelm4,
		majorsDiffer: "helm 3 renders an apiVersion v3 chart as v2; helm 4.3.1 panics on its dependencies"},
	{path: "internal/chart/v3/util/testdata/frobnitz", raw: true, wantErr: errBoth},
}

// majorFeatureCases are small charts, one per known difference between
// the Helm majors that the corpus's real charts do not show.
func majorFeatureCases(t *testing.T) []corpusCase {
	chart := func(apiVersion, data string) map[string]string {
		return map[string]string{
			"Chart.yaml":        "apiVersion: " + apiVersion + "\nname: feature\nversion: 0.1.0\n",
			"values.yaml":       "defaults: {keep: 1, drop: 2}\n",
			"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: feature\ndata:\n" + data,
		}
	}
	values := chart("v2", "  a: {{ .Values.a | quote }}\n  b: {{ .Values.b | quote }}\n  defaults: {{ toJson .Values.defaults | quote }}\n")
	kube := chart("v2", "  version: {{ .Capabilities.KubeVersion.Version | quote }}\n"+
		"  gke: {{ semverCompare \">=1.31.0-0\" .Capabilities.KubeVersion.Version | quote }}\n")
	funcs := chart("v2", "  yaml: {{ mustToYaml .Values.defaults | quote }}\n  seconds: {{ durationSeconds \"1m30s\" | quote }}\n")
	return []corpusCase{
		{name: "features/multi-document value file", req: Request{Chart: packageDir(t, writeChartDir(t, values)),
			ValueFiles: []NamedBytes{{"values/two-docs.yaml", []byte("a: 1\n---\nb: 2\n")}}},
			majorsDiffer: multiDocFile},
		{name: "features/user null deletes a default", req: Request{Chart: packageDir(t, writeChartDir(t, values)),
			Values: []byte("defaults: {drop: null}\n"), Parameters: []Parameter{{Name: "a", Value: "null"}}}},
		{name: "features/kube version with vendor suffix", req: Request{Chart: packageDir(t, writeChartDir(t, kube)),
			KubeVersion: "v1.31.2-gke.1245000"},
			majorsDiffer: "helm 4 keeps the suffix of --kube-version in .Capabilities.KubeVersion.Version, helm 3 drops it"},
		{name: "features/helm 4 template functions", req: Request{Chart: packageDir(t, writeChartDir(t, funcs))},
			wantErr: errHelm3, majorsDiffer: "mustToYaml, durationSeconds and the other duration helpers exist in helm 4 only"},
		{name: "features/chart apiVersion v3", req: Request{Chart: packRaw(t, writeChartDir(t, chart("v3", "  a: \"1\"\n")))},
			wantErr: errHelm4, majorsDiffer: "helm 3 renders an apiVersion v3 chart as v2; helm 4.3.1 template refuses it"},
		{name: "features/set key with an open bracket", req: Request{Chart: packageDir(t, writeChartDir(t, values)),
			Parameters: []Parameter{{Name: "a[", Value: "1"}}}, wantErr: errHelm3,
			majorsDiffer: "helm 3 refuses --set a[=1 (error parsing index), helm 4 ignores it silently"},
	}
}
