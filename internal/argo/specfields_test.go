package argo

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// TestInstanceName: Argo CD knows an Application outside its control
// plane's namespace as "<namespace>_<name>": that is ARGOCD_APP_NAME and
// the tracking value, while the release name stays the name. A generated
// app lives in its ApplicationSet's namespace.
func TestInstanceName(t *testing.T) {
	manifest := `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: team-a}
spec:
  project: p
  source:
    repoURL: https://charts.example.org
    chart: c
    targetRevision: "1"
    helm: {parameters: [{name: id, value: $ARGOCD_APP_NAME}]}
  destination: {server: https://kubernetes.default.svc, namespace: web}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: plain, namespace: argocd}
spec:
  project: p
  source: {repoURL: https://charts.example.org, chart: c, targetRevision: "1"}
  destination: {server: https://kubernetes.default.svc, namespace: web}
---
` + appSet("", "  - list: {elements: [{name: gen}]}", `"{{name}}"`, "      namespace: ignored") + `
`
	setNS := `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: set2, namespace: team-b}
spec:
  generators: [{list: {elements: [{name: gen2}]}}]
  template:
    metadata: {name: '{{name}}', namespace: elsewhere}
    spec:
      project: p
      source: {repoURL: https://charts.example.org, chart: c, targetRevision: "1"}
      destination: {server: https://kubernetes.default.svc, namespace: x}
`
	for _, tc := range []struct {
		controlPlane string
		want         map[string]string
	}{
		{"", map[string]string{"web": "team-a_web", "plain": "plain", "gen": "gen", "gen2": "team-b_gen2"}},
		{"team-a", map[string]string{"web": "web", "plain": "argocd_plain", "gen": "gen", "gen2": "team-b_gen2"}},
	} {
		cfg := testConfig(t)
		cfg.Argo = config.ArgoCD{Namespace: tc.controlPlane}
		fsys := fstest.MapFS{"argocd/qa/m.yaml": {Data: []byte(manifest)}, "argocd/qa/n.yaml": {Data: []byte(setNS)}}
		apps, err := Discover(fsys, cfg, "qa")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, a := range apps {
			got[a.Name] = a.Instance
			req, err := a.Resolve(a.Sources[0], ResolveOptions{Config: cfg, FS: fsys, Revision: "1"})
			if err != nil {
				t.Fatal(err)
			}
			if req.BuildEnv.AppName != a.Instance || req.Helm.ReleaseName != a.Name {
				t.Errorf("%s: ARGOCD_APP_NAME %q, release %q", a.Name, req.BuildEnv.AppName, req.Helm.ReleaseName)
			}
			if a.Name == "web" && req.Helm.Parameters[0].Value != a.Instance {
				t.Errorf("web: parameter id = %q, want %q", req.Helm.Parameters[0].Value, a.Instance)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("control plane %q: instance names (-want +got):\n%s", tc.controlPlane, diff)
		}
	}
}

// TestSpecFieldsArgoCDAccepts: fields of Argo CD 3.6's Application types
// that the model used to refuse as unknown.
func TestSpecFieldsArgoCDAccepts(t *testing.T) {
	manifest := app("hydrated", `  project: p
  sourceHydrator:
    drySource:
      repoURL: `+testRepo+`
      targetRevision: main
      path: d
      directory: {recurse: true, disableExtensionFilter: true, include: "*.tpl"}
    syncSource: {targetBranch: env/qa, path: qa}
  destination: {server: https://kubernetes.default.svc, namespace: web}
---
`) + app("tagged", `  project: p
  sources:
  - {repoURL: https://git.example.org/other.git, path: x, targetRevision: "^1.2", tagPrefix: "ui/v", name: ui}
  destination: {server: https://kubernetes.default.svc, namespace: web}
`)
	fsys := fstest.MapFS{"argocd/qa/m.yaml": {Data: []byte(manifest)}, "d/a.tpl": {Data: []byte("{}")}}
	apps, err := Discover(fsys, testConfig(t), "qa")
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 2 {
		t.Fatalf("apps = %v", names(apps))
	}
	h := apps[0]
	if h.MultiSource || len(h.Sources) != 1 || h.Sources[0].Kind != KindDirectory || !h.Sources[0].Directory.DisableExtensionFilter {
		t.Errorf("hydrated app: %+v", h)
	}
	if files, err := h.Sources[0].DirectoryFiles(fsys); err != nil || !cmp.Equal(files, []string{"d/a.tpl"}) {
		t.Errorf("hydrated app reads %v, %v", files, err)
	}
	if s := apps[1].Sources[0]; s.TagPrefix != "ui/v" || s.Name != "ui" || !apps[1].MultiSource {
		t.Errorf("tagged app source: %+v", s)
	}
}

// helm.valuesObject reaches Argo CD through kubectl's YAML 1.1 reading:
// `yes` is a boolean there, and Helm must see true, not "yes".
func TestValuesObjectReadAsKubectlDoes(t *testing.T) {
	fsys := fstest.MapFS{"argocd/qa/m.yaml": {Data: []byte(app("v", "  source: {repoURL: https://charts.example.org, chart: c, targetRevision: '1', "+
		"helm: {valuesObject: {enabled: yes, name: 'yes', num: 010, y: 1}}}\n"))}}
	apps, err := Discover(fsys, testConfig(t), "qa")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(apps[0].Sources[0].Helm.ValuesObject), "enabled: true\nname: \"yes\"\nnum: 8\n\"true\": 1\n"; got != want {
		t.Errorf("valuesObject = %q, want %q", got, want)
	}
}
