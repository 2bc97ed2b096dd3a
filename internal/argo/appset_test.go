package argo

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

const testRepo = "https://git.example.org/platform/ledger-gitops.git"

func testConfig(t testing.TB) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(`repoURL: ` + testRepo + `
environments: [qa]
versions: versions/{env}.yaml
manifests: ["argocd/{env}/*.yaml"]
components: {ledger.api: {chart: ledger-api}}
`))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// tree builds a MapFS holding manifest (as argocd/qa/m.yaml) and one empty
// values file in each of dirs.
func tree(manifest string, dirs ...string) fstest.MapFS {
	m := fstest.MapFS{"argocd/qa/m.yaml": {Data: []byte(manifest)}}
	for _, d := range dirs {
		m[d+"/values.yaml"] = &fstest.MapFile{Data: []byte("{}\n")}
	}
	return m
}

// appSet wraps generator and template YAML (indented for spec) in an
// ApplicationSet.
func appSet(specExtra, generators, name, extraMeta string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: set}
spec:
` + specExtra + `
  generators:
` + generators + `
  template:
    metadata:
      name: ` + name + `
` + extraMeta + `
    spec:
      project: p
      source: {repoURL: https://charts.example.org, chart: c, targetRevision: "1"}
      destination: {server: https://kubernetes.default.svc, namespace: ns}
`
}

func gitDirs(paths ...string) string {
	s := "  - git:\n      repoURL: " + testRepo + "\n      revision: main\n      directories:\n"
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, "!"); ok {
			s += "      - {path: " + rest + ", exclude: true}\n"
		} else {
			s += "      - {path: '" + p + "'}\n"
		}
	}
	return s
}

var nodes = []string{"envs/qa/nodes/alpha", "envs/qa/nodes/Beta_Two", "envs/qa/nodes/gone", "envs/qa/other/x"}

func TestAppSetExpansion(t *testing.T) {
	tests := []struct {
		name, spec, gens, tmplName, meta string
		want                             []string
		wantLabel                        string // label "l" of the first app, if meta sets it
	}{
		{name: "fasttemplate basename", gens: gitDirs("envs/qa/nodes/*"), tmplName: `"a-{{path.basename}}"`,
			want: []string{"a-Beta_Two", "a-alpha", "a-gone"}},
		{name: "exclude wins over include", gens: gitDirs("envs/qa/nodes/*", "!envs/qa/nodes/gone"), tmplName: `"a-{{path.basename}}"`,
			want: []string{"a-Beta_Two", "a-alpha"}},
		{name: "basenameNormalized", gens: gitDirs("envs/qa/nodes/B*"), tmplName: `"a-{{path.basenameNormalized}}"`,
			want: []string{"a-beta-two"}},
		{name: "path segments", gens: gitDirs("envs/*/nodes/alpha"), tmplName: `"{{path[1]}}-{{path[3]}}"`,
			want: []string{"qa-alpha"}},
		{name: "spaces inside tags, unknown kept", gens: gitDirs("envs/qa/nodes/alpha"), tmplName: `"{{ path.basename }}"`,
			meta: "      labels: {l: '{{nope}}'}", want: []string{"alpha"}, wantLabel: "{{nope}}"},
		{name: "star stays in one segment", gens: gitDirs("envs/*"), tmplName: `"{{path.basename}}"`,
			want: []string{"qa"}},
		{name: "gotemplate", spec: "  goTemplate: true", gens: gitDirs("envs/qa/nodes/*", "!envs/qa/nodes/gone"),
			tmplName: `'{{.path.basenameNormalized}}'`, meta: "      labels: {l: '{{index .path.segments 2}}/{{.path.path}}'}",
			want: []string{"alpha", "beta-two"}, wantLabel: "nodes/envs/qa/nodes/alpha"},
		{name: "gotemplate sprig", spec: "  goTemplate: true", gens: gitDirs("envs/qa/nodes/alpha"),
			tmplName: `'{{.path.basename | upper | lower}}-{{ "x" | repeat 2 }}'`, want: []string{"alpha-xx"}},
		{name: "gotemplate missing key default", spec: "  goTemplate: true", gens: gitDirs("envs/qa/nodes/alpha"),
			tmplName: `'{{.path.basename}}'`, meta: "      labels: {l: '{{.nope}}'}", want: []string{"alpha"}, wantLabel: "<no value>"},
		{name: "list", gens: "  - list:\n      elements: [{name: one, values: {v: x}}, {name: two, values: {v: yy}}]",
			tmplName: `"{{name}}-{{values.v}}"`, want: []string{"one-x", "two-yy"}},
		{name: "list gotemplate", spec: "  goTemplate: true", gens: "  - list:\n      elements: [{name: one, k: 3}]",
			tmplName: `'{{.name}}-{{.k}}'`, want: []string{"one-3"}},
		{name: "generator template override", gens: gitDirs("envs/qa/nodes/alpha")[:len(gitDirs("envs/qa/nodes/alpha"))-1] +
			"\n      template: {metadata: {labels: {l: 'gen-{{path.basename}}'}}, spec: {}}", tmplName: `"{{path.basename}}"`,
			meta: "      labels: {l: base}", want: []string{"alpha"}, wantLabel: "gen-alpha"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := tree(appSet(tt.spec, tt.gens, tt.tmplName, tt.meta), nodes...)
			apps, err := Discover(fsys, testConfig(t), "qa")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, names(apps)); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			if tt.wantLabel != "" && apps[0].Labels["l"] != tt.wantLabel {
				t.Errorf("label l = %q, want %q", apps[0].Labels["l"], tt.wantLabel)
			}
			for _, a := range apps {
				if a.Kind != "ApplicationSet" || a.AppSet != "set" || a.File != "argocd/qa/m.yaml" {
					t.Errorf("app %s: kind %q appset %q file %q", a.Name, a.Kind, a.AppSet, a.File)
				}
			}
		})
	}
}

func TestAppSetErrors(t *testing.T) {
	tests := []struct {
		name, spec, gens, tmplName string
		want                       string // substring of the error
	}{
		{"missingkey=error", "  goTemplate: true\n  goTemplateOptions: [missingkey=error]", gitDirs("envs/qa/nodes/alpha"),
			`'{{.path.nope}}'`, "applicationset set: template:"},
		{"foreign git repo", "", strings.Replace(gitDirs("envs/*"), testRepo, "https://git.example.org/other.git", 1),
			`"x"`, "git generator repoURL https://git.example.org/other.git is not this repository"},
		{"cluster generator", "", "  - clusters: {}", `"x"`, "applicationset set: generators[0]: clusters generator is not supported"},
		{"matrix of one generator", "", "  - matrix: {generators: [{list: {elements: [{}]}}]}", `"x"`, "found less than two generators, Matrix support only two"},
		{"scm generator", "", "  - scmProvider: {}", `"x"`, "scmProvider generator is not supported"},
		{"pull request generator", "", "  - pullRequest: {}", `"x"`, "pullRequest generator is not supported"},
		{"merge without generators", "", "  - merge: {}", `"x"`, "found less than two generators, Merge requires two or more"},
		{"plugin generator", "", "  - plugin: {}", `"x"`, "plugin generator is not supported"},
		{"cluster decision generator", "", "  - clusterDecisionResource: {}", `"x"`, "clusterDecisionResource generator is not supported"},
		{"duplicate names", "", gitDirs("envs/qa/nodes/*"), `"same"`, "generates application same twice"},
		{"unterminated fasttemplate", "", gitDirs("envs/qa/nodes/alpha"), `"{{path"`, "no closing }}"},
		{"bad option", "  goTemplate: true\n  goTemplateOptions: [bogus]", gitDirs("envs/*"), `"x"`, `unsupported option "bogus"`},
		{"matrix of three", "", "  - matrix: {generators: [{list: {elements: [{}]}}, {list: {elements: [{}]}}, {list: {elements: [{}]}}]}", `"x"`,
			"found more than two generators, Matrix support only two"},
		{"matrix key conflict in default syntax", "", "  - matrix: {generators: [{list: {elements: [{k: a}]}}, {list: {elements: [{k: b}]}}]}", `"x"`,
			"found duplicate key k with different value, a: a ,b: b"},
		{"third level of matrix", "", "  - matrix: {generators: [{list: {elements: [{a: x}]}}, {matrix: {generators: [{list: {elements: [{bb: yy}]}}, {matrix: {generators: [{list: {elements: [{}]}}, {list: {elements: [{}]}}]}}]}}]}", `"x"`,
			"child generator generated no parameters"},
		{"two kinds in a matrix child", "", "  - matrix: {generators: [{list: {elements: [{}]}, git: {repoURL: " + testRepo + ", directories: [{path: envs}]}}, {list: {elements: [{}]}}]}", `"x"`,
			"found more than one generator in matrix.Generators"},
		{"selector operator", "", "  - list: {elements: [{a: x}]}\n    selector: {matchExpressions: [{key: a, operator: Gt, values: ['1']}]}", `"x"`,
			`error parsing label selector: "Gt" is not a valid pod selector operator`},
		{"selector key", "", "  - list: {elements: [{a: x}]}\n    selector: {matchLabels: {'path[0]': x}}", `"x"`,
			`error parsing label selector: key: Invalid value: "path[0]"`},
		{"merge without keys", "", "  - merge: {generators: [{list: {elements: [{a: x}]}}, {list: {elements: [{a: x}]}}]}", `"x"`,
			"no merge keys were specified, Merge requires at least one"},
		{"list number in default syntax", "", "  - list:\n      elements: [{num: 3}]", `"x"`, "num is not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := tree(appSet(tt.spec, tt.gens, tt.tmplName, ""), nodes...)
			_, err := Discover(fsys, testConfig(t), "qa")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "env qa: argocd/qa/m.yaml:") || strings.Contains(err.Error(), "\n") {
				t.Errorf("err %q lacks env and file:line context or spans lines", err)
			}
		})
	}
}

// A node directory present at only one revision changes the app set.
func TestNodeDirAtOneRevision(t *testing.T) {
	manifest := appSet("", gitDirs("envs/qa/nodes/*"), `"n-{{path.basename}}"`, "")
	before := tree(manifest, "envs/qa/nodes/alpha")
	after := tree(manifest, "envs/qa/nodes/alpha", "envs/qa/nodes/delta")
	var got [][]string
	for _, fsys := range []fstest.MapFS{before, after} {
		apps, err := Discover(fsys, testConfig(t), "qa")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, names(apps))
	}
	want := [][]string{{"n-alpha"}, {"n-alpha", "n-delta"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestGitFilesGenerator(t *testing.T) {
	gens := "  - git:\n      repoURL: " + testRepo + "\n      files: [{path: 'envs/**/node.yaml'}]"
	fsys := tree(appSet("", gens, `"{{name}}-{{path.basename}}-{{path.filenameNormalized}}-{{size.cpu}}"`, ""))
	fsys["envs/qa/a/node.yaml"] = &fstest.MapFile{Data: []byte("name: first\nsize: {cpu: 2}\n")}
	fsys["envs/qa/b/node.yaml"] = &fstest.MapFile{Data: []byte("- {name: second, size: {cpu: 1000000}}\n")}
	apps, err := Discover(fsys, testConfig(t), "qa")
	if err != nil {
		t.Fatal(err)
	}
	// Numbers print as Argo CD prints them after its JSON round trip.
	want := []string{"first-a-node.yaml-2", "second-b-node.yaml-1e+06"}
	if diff := cmp.Diff(want, names(apps)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
