package render

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chartBytes returns a packaged test chart: a .tgz under testdata/charts
// as is, a chart directory there packaged the way `helm package` does, or
// "demo", built by demoChart.
func chartBytes(t *testing.T, name string) []byte {
	t.Helper()
	switch {
	case name == "demo":
		return packageDir(t, writeChartDir(t, demoFiles))
	case filepath.Ext(name) == ".tgz":
		data, err := os.ReadFile(filepath.Join("testdata", "charts", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	return packageDir(t, filepath.Join("testdata", "charts", name))
}

// demoVariant is demo with chartYAML appended to its Chart.yaml.
func demoVariant(t *testing.T, chartYAML string) []byte {
	t.Helper()
	files := maps.Clone(demoFiles)
	files["Chart.yaml"] += chartYAML
	return packageDir(t, writeChartDir(t, files))
}

// missingDependency declares a dependency the packaged chart lacks.
const missingDependency = `dependencies:
  - name: redis
    version: 1.0.0
    repository: https://charts.example.com
`

// packageDir packages a chart directory with its files as they are, the
// way PackageChartDir does (.helmignore applied, no dependency build), so
// a test chart is the chart `helm template <dir>` reads. chartutil.Save
// would rewrite Chart.yaml from the loaded metadata and drop the
// dependencies of an apiVersion v1 chart's Chart.yaml.
func packageDir(t *testing.T, dir string) []byte {
	t.Helper()
	files, err := readChartDir(os.DirFS(dir), ".")
	if err != nil {
		t.Fatalf("read chart %s: %v", dir, err)
	}
	data, err := tarChart(filepath.Base(dir), loadable(files))
	if err != nil {
		t.Fatalf("package chart %s: %v", dir, err)
	}
	return data
}

// The test charts are packaged as helm reads their directory: a v1
// chart's Chart.yaml dependencies survive, so a subchart its condition
// disables stays out (chartutil.Save dropped them, and rendered it).
func TestPackageDirKeepsChartYAMLDependencies(t *testing.T) {
	files := withFiles(subchart("beta", "v1"), map[string]string{
		"Chart.yaml":        "apiVersion: v1\nname: top\nversion: 0.1.0\ndependencies:\n  - {name: beta, version: 1.0.0, condition: beta.enabled}\n",
		"values.yaml":       "beta: {enabled: false}\n",
		"templates/cm.yaml": cmTemplate,
	})
	for _, m := range helmMajors {
		out, err := recovering(m.render)(context.Background(), Request{Chart: packageDir(t, writeChartDir(t, files)), ReleaseName: "rel"})
		if err != nil || !strings.Contains(string(out), "name: rel-top") || strings.Contains(string(out), "rel-beta") {
			t.Errorf("%s: %v\n%s", m.name, err, out)
		}
	}
}

func writeChartDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// demoFiles is a chart exercising what manifestdiff relies on: values,
// the release and capabilities objects, a Secret, a CRD, hooks (one of
// them a test), NOTES.txt, a helper, and opt-in randomness and failure.
var demoFiles = map[string]string{
	"Chart.yaml": `apiVersion: v2
name: demo
version: 1.2.3
appVersion: "4.5"
`,
	"values.yaml": `replicas: 1
image:
  repository: nginx
  tag: "1.0"
env: dev
hosts: [a.example.com]
password: hunter2
random: false
fail: false
`,
	"crds/widgets.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true}]
`,
	"templates/_helpers.tpl": `{{- define "demo.name" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end -}}
`,
	"templates/NOTES.txt": "Installed {{ .Release.Name }}.\n",
	"templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "demo.name" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    env: {{ .Values.env | quote }}
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
        - name: app
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          env:
            - name: HOSTS
              value: {{ join "," .Values.hosts | quote }}
`,
	"templates/secret.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: {{ include "demo.name" . }}
data:
  password: {{ .Values.password | toString | b64enc }}
`,
	"templates/capabilities.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "demo.name" . }}-caps
  namespace: {{ .Release.Namespace }}
data:
  kubeVersion: {{ .Capabilities.KubeVersion.Version | quote }}
  kubeMinor: {{ .Capabilities.KubeVersion.Minor | quote }}
  hasAppsV1: {{ .Capabilities.APIVersions.Has "apps/v1" | quote }}
  hasWidgets: {{ .Capabilities.APIVersions.Has "example.com/v1" | quote }}
  hasWidgetKind: {{ .Capabilities.APIVersions.Has "example.com/v1/Widget" | quote }}
  isInstall: {{ .Release.IsInstall | quote }}
`,
	"templates/hooks.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "demo.name" . }}-migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-5"
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata:
  name: {{ include "demo.name" . }}-test
  annotations:
    helm.sh/hook: test
spec:
  containers: [{name: test, image: busybox}]
`,
	"templates/random.yaml": `{{- if .Values.random }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "demo.name" . }}-random
stringData:
  token: {{ randAlphaNum 24 | quote }}
{{- end }}
`,
	"templates/fail.yaml": `{{ if .Values.fail }}{{ fail "demo asked to fail" }}{{ end }}
`,
}
