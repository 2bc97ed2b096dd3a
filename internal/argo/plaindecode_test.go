package argo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// plainWalks are the walks decodePlain takes before falling back to
// yaml.v3, each with a check that, where the walk succeeds on a node,
// yaml.v3 decodes that node without error into the same value.
var plainWalks = map[string]func(t *testing.T, n *yaml.Node) bool{
	"meta":      plainAgrees(plainMeta),
	"spec":      plainAgrees(plainSpec),
	"source":    plainAgrees(plainSource),
	"helm":      plainAgrees(plainHelm),
	"automated": plainAgrees(plainAutomated),
}

func plainAgrees[T any](walk func(*yaml.Node, *T) bool) func(t *testing.T, n *yaml.Node) bool {
	return func(t *testing.T, n *yaml.Node) bool {
		t.Helper()
		var got, want T
		if !walk(n, &got) {
			return false
		}
		if err := n.Decode(&want); err != nil {
			t.Fatalf("line %d: the walk decoded what yaml.v3 refuses (%v): %#v", n.Line, err, got)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("line %d: walk and yaml.v3 differ (-yaml.v3 +walk):\n%s", n.Line, diff)
		}
		return true
	}
}

// checkPlainWalks tries every walk on every mapping of data's documents
// and returns how many walks succeeded.
func checkPlainWalks(t *testing.T, data []byte) int {
	t.Helper()
	docs, _, err := splitDocs("f", data)
	if err != nil {
		return 0
	}
	ok := 0
	var visit func(n *yaml.Node)
	visit = func(n *yaml.Node) {
		if n == nil || hasAliases(n) {
			return // discovery expands aliases before any decode
		}
		if n.Kind == yaml.MappingNode {
			for _, check := range plainWalks {
				if check(t, n) {
					ok++
				}
			}
		}
		for _, c := range n.Content {
			visit(c)
		}
	}
	for _, d := range docs {
		visit(d)
	}
	return ok
}

// The walks must take the shapes of real manifests (else they save
// nothing) and agree with yaml.v3 on them.
func TestPlainDecodeOnManifests(t *testing.T) {
	files, _ := filepath.Glob("testdata/repo/argocd/*/*.yaml")
	more, _ := filepath.Glob("testdata/appset-parity/*.yaml")
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("only %d manifests", len(files))
	}
	ok := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ok += checkPlainWalks(t, data)
	}
	if ok < 100 {
		t.Fatalf("the walks decoded only %d mappings of %d files", ok, len(files))
	}
}

// Shapes where yaml.v3 does something other than the obvious: the walk
// must give up on each (or agree, which checkPlainWalks verifies).
func TestPlainDecodeEdges(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		walk       string
		want       bool // the walk takes it
	}{
		{"plain", "name: a\nnamespace: b\nannotations: {x: y}\n", "meta", true},
		{"unknown keys ignored", "name: a\nother: [1, {b: c}]\n", "meta", true},
		{"null struct field", "name: ~\nannotations: null\n", "meta", true},
		{"repeated key", "name: a\nname: b\n", "meta", false},
		{"repeated unknown key", "x: a\nx: b\n", "meta", false},
		{"merge key", "<<: {name: a}\n", "meta", false},
		{"number as string", "name: 5\n", "meta", false},
		{"tagged string", "name: !!str 5\n", "meta", true},
		{"custom tag", "name: !foo a\n", "meta", false},
		{"binary", "name: !!binary YQ==\n", "meta", false},
		{"null annotation", "annotations: {a: ~}\n", "meta", false},
		{"number key", "annotations: {1: a}\n", "meta", false},
		{"annotations list", "annotations: [a]\n", "meta", false},
		{"empty list", "valueFiles: []\n", "helm", true},
		{"null list item", "valueFiles: [a, ~]\n", "helm", false},
		{"bool", "skipCrds: True\npassCredentials: false\n", "helm", true},
		{"yes is not a bool here", "skipCrds: yes\n", "helm", false},
		{"quoted bool", "skipCrds: 'true'\n", "helm", false},
		{"null parameter", "parameters: [~]\n", "helm", false},
		{"parameter", "parameters: [{name: a, value: b, forceString: true}]\n", "helm", true},
		{"enabled null", "enabled: null\nprune: true\n", "automated", true},
		{"enabled false", "enabled: false\n", "automated", true},
		{"sources of any kind", "sources: [a, ~, {repoURL: r}]\n", "spec", true},
		{"sources mapping", "sources: {a: b}\n", "spec", false},
		{"sources null", "sources: ~\nsource: ~\n", "spec", true},
		{"tagged mapping", "destination: !foo {server: s}\n", "spec", false},
		{"ignoreDifferences", "ignoreDifferences: [{kind: K, jsonPointers: [/a]}]\n", "spec", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tc.yaml), &doc); err != nil {
				t.Fatal(err)
			}
			if got := plainWalks[tc.walk](t, doc.Content[0]); got != tc.want {
				t.Fatalf("walk took it: %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzPlainDecode: wherever a walk decodes a mapping, yaml.v3 decodes it
// into the same value without error.
func FuzzPlainDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/repo/argocd/*/*.yaml")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("name: a\nannotations: {x: ~, 1: b}\nlabels: {}\nsources: [~, a]\nskipCrds: True\nparameters: [{name: a, forceString: yes}]\n"))
	f.Add([]byte("helm: {valueFiles: [a, !!str 1, 'b'], releaseName: !!binary YQ==}\nenabled: ~\nprune: FALSE\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkPlainWalks(t, data)
	})
}
