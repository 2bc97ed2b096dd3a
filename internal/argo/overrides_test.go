package argo

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestParameterOverrideFiles follows the repo-server's mergeSourceParameters
// (and its app-parameters testdata): .argocd-source.yaml then
// .argocd-source-<app>.yaml are JSON merge patches over the source, unknown
// fields are ignored, repoURL/path/chart/targetRevision cannot change, a
// file that does not parse fails the app when it renders.
func TestParameterOverrideFiles(t *testing.T) {
	const chartDir = "charts/web"
	base := func(extra map[string]string) fstest.MapFS {
		m := fstest.MapFS{
			chartDir + "/Chart.yaml":  {Data: []byte("apiVersion: v2\nname: web\nversion: 1.0.0\n")},
			"plain/cm.yaml":           {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")},
			"plain/sub/cm2.yaml":      {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\n")},
			"kust/kustomization.yaml": {Data: []byte("resources: []\n")},
		}
		for k, v := range extra {
			m[k] = &fstest.MapFile{Data: []byte(v)}
		}
		return m
	}
	helmApp := func(name, ns string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n" +
			"  source: {repoURL: " + testRepo + ", path: " + chartDir + ", targetRevision: main, helm: {releaseName: rel, parameters: [{name: a, value: '1'}]}}\n" +
			"  destination: {namespace: web}\n---\n"
	}
	tests := []struct {
		name     string
		manifest string
		files    map[string]string
		check    func(t *testing.T, a App)
		wantErr  string
	}{
		{name: "global then app file, lists replaced", manifest: helmApp("web", "argocd") + helmApp("api", "argocd"),
			files: map[string]string{
				chartDir + "/.argocd-source.yaml":     "helm:\n  parameters: [{name: b, value: '2'}]\n  valueFiles: [values-qa.yaml]\n",
				chartDir + "/.argocd-source-web.yaml": "helm:\n  parameters: [{name: c, value: '3', forceString: true}]\n"},
			check: func(t *testing.T, a App) {
				h := a.Sources[0].Helm
				want := map[string][]Parameter{"web": {{Name: "c", Value: "3", ForceString: true}}, "api": {{Name: "b", Value: "2"}}}
				if diff := cmp.Diff(want[a.Name], h.Parameters); diff != "" || h.ReleaseName != "rel" || !cmp.Equal(h.ValueFiles, []string{"values-qa.yaml"}) {
					t.Errorf("%s helm = %+v (%s)", a.Name, h, diff)
				}
			}},
		{name: "unknown fields ignored, identity kept", manifest: helmApp("web", "argocd"),
			files: map[string]string{chartDir + "/.argocd-source.yaml": "repo: https://somewhere\npath: elsewhere\nrepoURL: https://evil\ntargetRevision: v9\n" +
				"helm: {invalid: [x], Values: 'a: 1'}\n"},
			check: func(t *testing.T, a App) {
				s := a.Sources[0]
				if s.Path != chartDir || s.RepoURL != testRepo || s.TargetRevision != "main" || s.Helm.Values != "a: 1" || len(s.Helm.Parameters) != 1 {
					t.Errorf("source = %+v helm %+v", s, s.Helm)
				}
			}},
		{name: "overrides decide the type", manifest: app("d", "  source: {repoURL: "+testRepo+", path: plain}\n"),
			files: map[string]string{"plain/.argocd-source.yaml": "directory: {recurse: true}\n"},
			check: func(t *testing.T, a App) {
				if s := a.Sources[0]; s.Kind != KindDirectory || s.Directory == nil || !s.Directory.Recurse {
					t.Errorf("source = %+v", s)
				}
			}},
		{name: "namespaced app file", manifest: helmApp("web", "team-a"),
			files: map[string]string{chartDir + "/.argocd-source-web.yaml": "helm: {releaseName: wrong}\n",
				chartDir + "/.argocd-source-team-a_web.yaml": "helm: {releaseName: right}\n"},
			check: func(t *testing.T, a App) {
				if r := a.Sources[0].Helm.ReleaseName; r != "right" {
					t.Errorf("release name %q", r)
				}
			}},
		{name: "kustomize images, app file wins", manifest: app("testapp", "  source: {repoURL: "+testRepo+", path: kust}\n"),
			files: map[string]string{"kust/.argocd-source.yaml": "kustomize:\n  images:\n    - quay.io/argoprojlabs/argocd-e2e-container:0.2",
				"kust/.argocd-source-testapp.yaml": "kustomize:\n  images:\n    - quay.io/argoprojlabs/argocd-e2e-container:0.3"},
			check: func(t *testing.T, a App) {
				if s := a.Sources[0]; s.Kind != KindKustomize || !strings.Contains(string(s.Kustomize), "container:0.3") || strings.Contains(string(s.Kustomize), "0.2") {
					t.Errorf("source %+v kustomize %s", s, s.Kustomize)
				}
			}},
		{name: "broken file", manifest: helmApp("web", "argocd"),
			files:   map[string]string{chartDir + "/.argocd-source-web.yaml": "aloi\nkustomize:\n  images: [x]\n"},
			wantErr: "spec.source: error while parsing source parameters: charts/web/.argocd-source-web.yaml: "},
		{name: "empty file", manifest: helmApp("web", "argocd"),
			files:   map[string]string{chartDir + "/.argocd-source.yaml": ""},
			wantErr: "charts/web/.argocd-source.yaml: Invalid JSON Patch"},
		{name: "wrong type", manifest: helmApp("web", "argocd"),
			files:   map[string]string{chartDir + "/.argocd-source.yaml": "helm: {skipCrds: maybe}\n"},
			wantErr: "json: cannot unmarshal string into Go struct field helm.skipCrds of type bool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := base(tt.files)
			fsys["argocd/qa/m.yaml"] = &fstest.MapFile{Data: []byte(tt.manifest)}
			apps, err := Discover(fsys, testConfig(t), "qa")
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range apps {
				err := a.RenderError()
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("RenderError = %v, want %q", err, tt.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				tt.check(t, a)
			}
		})
	}
}
