package ordering

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// checkPlainDoc tries plainDoc on every mapping of data: where it takes
// one, yaml.v3 must decode it without error into the same rawDoc. It
// returns how many it took.
func checkPlainDoc(t *testing.T, data []byte) int {
	t.Helper()
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return 0
	}
	took := 0
	var visit func(n *yaml.Node)
	visit = func(n *yaml.Node) {
		if n == nil || n.Kind == yaml.AliasNode {
			return
		}
		if n.Kind == yaml.MappingNode {
			var got, want rawDoc
			if plainDoc(n, &got) {
				took++
				if err := n.Decode(&want); err != nil {
					t.Fatalf("line %d: plainDoc decoded what yaml.v3 refuses (%v):\n%s", n.Line, err, data)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("line %d: plainDoc and yaml.v3 differ (-yaml.v3 +walk):\n%s\nin:\n%s", n.Line, diff, data)
				}
			}
		}
		for _, c := range n.Content {
			visit(c)
		}
	}
	visit(&doc)
	return took
}

func TestPlainDocOnFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/argocd/*/*.yaml")
	took := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if checkPlainDoc(t, data) > 0 {
			took++
		}
	}
	if len(files) < 20 || took < len(files)*9/10 {
		t.Fatalf("plainDoc took %d of %d fixtures", took, len(files))
	}
}

func TestPlainDocEdges(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		take bool
	}{
		{"kind: Application\nspec: {syncPolicy: {automated: {}}}\n", true},
		{"spec: {syncPolicy: {automated: ~}}\n", true},
		{"spec: {syncPolicy: {automated: {enabled: false}}}\n", true},
		{"spec: {syncPolicy: {automated: {enabled: ~, prune: true}}}\n", true},
		{"spec: {syncPolicy: {automated: true}}\n", false},
		{"spec: {strategy: ~}\n", true},
		{"spec: {strategy: {type: RollingSync, rollingSync: {steps: [{matchExpressions: [{key: k, operator: In, values: [a]}], maxUpdate: 25%}]}}}\n", true},
		{"spec: {strategy: {rollingSync: {steps: [~]}}}\n", false},
		{"spec: {strategy: {rollingSync: {steps: [{matchExpressions: [{values: [1]}]}]}}}\n", false},
		{"metadata: {name: a, annotations: {x: '1'}}\n", true},
		{"metadata: {annotations: {x: 1}}\n", false},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tc.yaml), &doc); err != nil {
			t.Fatal(err)
		}
		var d rawDoc
		if got := plainDoc(doc.Content[0], &d); got != tc.take {
			t.Errorf("%q: plainDoc took it: %v, want %v", tc.yaml, got, tc.take)
		}
		checkPlainDoc(t, []byte(tc.yaml))
	}
}

func FuzzPlainDoc(f *testing.F) {
	files, _ := filepath.Glob("testdata/repo/argocd/qa/*.yaml")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("spec: {syncPolicy: {automated: {enabled: ~}}, template: {spec: {syncPolicy: {automated: {}}}, metadata: {annotations: {a: b}}}, strategy: {rollingSync: {steps: [{maxUpdate: ~}]}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkPlainDoc(t, data)
	})
}
