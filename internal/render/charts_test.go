package render

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
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

func packageDir(t *testing.T, dir string) []byte {
	t.Helper()
	ch, err := loader.LoadDir(dir)
	if err != nil {
		t.Fatalf("load chart %s: %v", dir, err)
	}
	out, err := chartutil.Save(ch, t.TempDir())
	if err != nil {
		t.Fatalf("package chart %s: %v", dir, err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
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
