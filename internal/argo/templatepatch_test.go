package argo

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// docPatchAppSet is the templatePatch example of Argo CD's ApplicationSet
// documentation (Template.md), with this repository as the source so the
// generated apps resolve, and a second element without autoSync.
const docPatchAppSet = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: guestbook
spec:
  goTemplate: true
  generators:
  - list:
      elements:
        - cluster: engineering-dev
          nameNormalized: engineering-dev
          url: https://kubernetes.default.svc
          autoSync: true
          prune: true
          valueFiles:
            - values.large.yaml
            - values.debug.yaml
        - cluster: engineering-prod
          nameNormalized: engineering-prod
          url: https://prod.example.com
          autoSync: false
          valueFiles: [values.prod.yaml]
  template:
    metadata:
      name: '{{ .nameNormalized }}-deployment'
    spec:
      project: "default"
      source:
        repoURL: ` + testRepo + `
        targetRevision: HEAD
        path: guestbook/{{ .nameNormalized }}
        helm:
          valueFiles: [values.yaml]
          releaseName: kept
      destination:
        server: '{{ .url }}'
        namespace: guestbook
  templatePatch: |
    spec:
      source:
        helm:
          valueFiles:
          {{- range $valueFile := .valueFiles }}
            - {{ $valueFile }}
          {{- end }}
    {{- if .autoSync }}
      syncPolicy:
        automated:
          prune: {{ .prune }}
    {{- end }}
`

// TestTemplatePatch: the documented example, then the strategic merge
// rules the controller applies (lists replaced, null deletes, $patch
// directives, spec.project never patched, fasttemplate parameters).
func TestTemplatePatch(t *testing.T) {
	fsys := fstest.MapFS{
		"argocd/qa/m.yaml":                      {Data: []byte(docPatchAppSet)},
		"guestbook/engineering-dev/Chart.yaml":  {Data: []byte("name: g\n")},
		"guestbook/engineering-prod/Chart.yaml": {Data: []byte("name: g\n")},
	}
	apps, err := Discover(fsys, testConfig(t), "qa")
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Name, Server, Release, Project string
		ValueFiles                     []string
		Automated                      bool
	}
	var gots []got
	for _, a := range apps {
		h := a.Sources[0].Helm
		gots = append(gots, got{a.Name, a.Server, h.ReleaseName, a.Project, h.ValueFiles, a.Automated})
	}
	want := []got{
		{"engineering-dev-deployment", "https://kubernetes.default.svc", "kept", "default", []string{"values.large.yaml", "values.debug.yaml"}, true},
		{"engineering-prod-deployment", "https://prod.example.com", "kept", "default", []string{"values.prod.yaml"}, false},
	}
	if diff := cmp.Diff(want, gots); diff != "" {
		t.Errorf("documented example (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		name, specExtra string
		want            func(a App) any
		wantVal         any
	}{
		{"project is never patched", "  goTemplate: true\n  templatePatch: 'spec: {project: evil}'",
			func(a App) any { return a.Project }, "p"},
		{"null deletes a key", "  goTemplate: true\n  templatePatch: 'spec: {source: {helm: null}}'",
			func(a App) any { return a.Sources[0].Helm == nil }, true},
		{"$patch: replace replaces a mapping", "  goTemplate: true\n  templatePatch: |\n    spec:\n      source:\n        $patch: replace\n        repoURL: https://charts.example.org\n        chart: other\n        targetRevision: '2'\n",
			func(a App) any { return [2]any{a.Sources[0].Chart, a.Sources[0].Helm == nil} }, [2]any{"other", true}},
		{"lists are replaced whole", "  goTemplate: true\n  templatePatch: 'spec: {source: {helm: {valueFiles: [b.yaml]}}}'",
			func(a App) any { return a.Sources[0].Helm.ValueFiles }, []string{"b.yaml"}},
		{"fasttemplate parameters", "  templatePatch: 'metadata: {labels: {dir: \"{{path.basename}}\"}}'",
			func(a App) any { return a.Labels["dir"] }, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := appSet(tc.specExtra, gitDirs("envs/*"), `'x-{{`+map[bool]string{true: ".path.basename", false: "path.basename"}[tc.specExtra[2:12] == "goTemplate"]+`}}'`, "")
			m = strings.Replace(m, `chart: c, targetRevision: "1"}`, `chart: c, targetRevision: "1", helm: {releaseName: r, valueFiles: [a.yaml]}}`, 1)
			apps, err := Discover(tree(m, "envs/a"), testConfig(t), "qa")
			if err != nil {
				t.Fatal(err)
			}
			if len(apps) != 1 {
				t.Fatalf("%d apps", len(apps))
			}
			if diff := cmp.Diff(tc.wantVal, tc.want(apps[0])); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
