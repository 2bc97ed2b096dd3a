package argo

import (
	"strings"
	"testing"
	"testing/fstest"
)

func app(name, spec string) string {
	return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: " + name + "}\nspec:\n" + spec
}

func TestDiscoverErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"bad yaml names file and line", map[string]string{"argocd/qa/a.yaml": "kind: ConfigMap\n---\nkind: [\n  oops: {\n"},
			"env qa: argocd/qa/a.yaml:4: "},
		{"wrong type names line", map[string]string{"argocd/qa/a.yaml": app("x", "  project: p\n  source:\n    repoURL: r\n    chart: [c]\n")},
			"argocd/qa/a.yaml:8: application x: spec.source: cannot unmarshal"},
		{"unknown helm field", map[string]string{"argocd/qa/a.yaml": app("x", "  source:\n    repoURL: r\n    chart: c\n    helm:\n      valueFile: [a]\n")},
			`argocd/qa/a.yaml:9: application x: spec.source.helm: unknown field "valueFile"`},
		{"no source", map[string]string{"argocd/qa/a.yaml": app("x", "  project: p\n")},
			"argocd/qa/a.yaml:1: application x: has neither spec.source nor spec.sources"},
		{"duplicate name", map[string]string{
			"argocd/qa/a.yaml": app("x", "  source: {repoURL: r, chart: c}\n"),
			"argocd/qa/b.yaml": "# second\n" + app("x", "  source: {repoURL: r, chart: c}\n")},
			"argocd/qa/b.yaml:2: app x: name already used by argocd/qa/a.yaml:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fstest.MapFS{"d/x.yaml": {Data: []byte("{}")}}
			for k, v := range tt.files {
				m[k] = &fstest.MapFile{Data: []byte(v)}
			}
			_, err := Discover(m, testConfig(t), "qa")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "line ") {
				t.Errorf("err %q should be one line with the line number up front", err)
			}
		})
	}
}

// TestRenderErrors: Argo CD accepts these Applications and fails when it
// renders them, so discovery keeps the app and rendering it fails with
// the reason and the manifest's file:line.
func TestRenderErrors(t *testing.T) {
	tests := []struct{ name, spec, want string }{
		{"two types", "  source: {repoURL: " + testRepo + ", path: d, helm: {}, directory: {}}\n",
			"env qa, app x: argocd/qa/a.yaml:1: spec.source: multiple source types defined: helm,directory"},
		{"missing path", "  source: {repoURL: " + testRepo + ", path: nowhere}\n",
			`argocd/qa/a.yaml:1: spec.source: path "nowhere" does not exist in this revision`},
		{"duplicate ref", "  sources: [{repoURL: r, ref: v}, {repoURL: r, ref: v}]\n",
			"spec.sources[1]: ref \"v\" is used by two sources: invalid sources: multiple sources had the same `ref` key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fstest.MapFS{"d/x.yaml": {Data: []byte("{}")}, "argocd/qa/a.yaml": {Data: []byte(app("x", tt.spec))}}
			apps, err := Discover(m, testConfig(t), "qa")
			if err != nil || len(apps) != 1 {
				t.Fatalf("Discover = %d apps, %v; want the app", len(apps), err)
			}
			if err := apps[0].RenderError(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("RenderError = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSourceKinds(t *testing.T) {
	m := fstest.MapFS{
		"chart/Chart.yaml":       {Data: []byte("name: c")},
		"kust/kustomization.yml": {Data: []byte("resources: []")},
		"plain/a.yaml":           {Data: []byte("{}")},
	}
	// keep: the source keeps its node for Resolve, as only a path source,
	// which may be of another repository, must: a chart or ref-only
	// source keeping it would hold its whole templated document alive,
	// for every app of a fleet (see keepRaw)
	tests := []struct {
		source, want string
		keep         bool
	}{
		{"{repoURL: https://charts.example.org, chart: c}", KindHelm, false},
		{"{repoURL: " + testRepo + ", path: chart}", KindHelm, true},
		{"{repoURL: " + testRepo + ", path: kust}", KindKustomize, true},
		{"{repoURL: " + testRepo + ", path: plain}", KindDirectory, true},
		{"{repoURL: " + testRepo + ", path: plain, helm: {valueFiles: [a.yaml]}}", KindHelm, true},
		{"{repoURL: " + testRepo + ", path: chart, directory: {recurse: true}}", KindDirectory, true},
		{"{repoURL: " + testRepo + ", path: plain, plugin: {}}", KindPlugin, true},
		{"{repoURL: " + testRepo + ", ref: v}", KindRef, false},
		{"{repoURL: https://git.example.org/other, path: x}", KindUnknown, true},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			m["argocd/qa/a.yaml"] = &fstest.MapFile{Data: []byte(app("x", "  source: "+tt.source+"\n"))}
			apps, err := Discover(m, testConfig(t), "qa")
			if err != nil {
				t.Fatal(err)
			}
			if got := apps[0].Sources[0].Kind; got != tt.want {
				t.Errorf("kind = %q, want %q", got, tt.want)
			}
			if got := apps[0].Sources[0].raw != nil; got != tt.keep {
				t.Errorf("kept its node = %v, want %v", got, tt.keep)
			}
		})
	}
}

// Anchors and merge keys are expanded before templating.
func TestAliases(t *testing.T) {
	m := fstest.MapFS{"argocd/qa/a.yaml": {Data: []byte(app("x",
		"  destination: &d {namespace: ns, server: s}\n  source: {repoURL: r, chart: c}\n  info: *d\n"))}}
	apps, err := Discover(m, testConfig(t), "qa")
	if err != nil {
		t.Fatal(err)
	}
	if apps[0].Namespace != "ns" {
		t.Errorf("namespace = %q", apps[0].Namespace)
	}
}
