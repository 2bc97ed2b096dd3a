package argo

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// rendered shares what it does not change with the template, so an
// ApplicationSet's template is rendered without a copy per app: it must
// equal rendering a copy in place (the expansion before it, which
// interpolate still does), leave the template as it was, and give two
// apps no node that one of them changed.
func checkRendered(t *testing.T, tmpl *yaml.Node, goTmpl bool, params []map[string]any) {
	t.Helper()
	before := copyNode(tmpl)
	r, err := newRenderer(goTmpl, nil)
	if err != nil {
		t.Fatal(err)
	}
	var outs []*yaml.Node
	for _, p := range params {
		want := copyNode(tmpl)
		werr := r.renderTreeExcept(want, p, nil)
		got, gerr := r.rendered(tmpl, p)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("errors differ: in place %v, rendered %v", werr, gerr)
		}
		if werr != nil {
			continue
		}
		if !sameTree(want, got) {
			t.Fatalf("rendered differs from rendering a copy in place:\n%s\nwant\n%s", dump(got), dump(want))
		}
		outs = append(outs, got)
	}
	if !sameTree(before, tmpl) {
		t.Fatalf("rendered modified the template:\n%s\nwas\n%s", dump(tmpl), dump(before))
	}
	// A node two results share must be the template's own.
	own := map[*yaml.Node]bool{}
	walkNodes(tmpl, func(n *yaml.Node) { own[n] = true })
	seen := map[*yaml.Node]int{}
	for i, o := range outs {
		walkNodes(o, func(n *yaml.Node) {
			if j, ok := seen[n]; ok && j != i && !own[n] {
				t.Fatalf("apps %d and %d share a rendered node %q", j, i, n.Value)
			}
			seen[n] = i
		})
	}
}

// sameTree is deep equality of two trees, where an empty and a nil
// Content are the same (copyNode makes the one from the other).
func sameTree(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) || !sameTree(a.Alias, b.Alias) {
		return false
	}
	for i := range a.Content {
		if !sameTree(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

func walkNodes(n *yaml.Node, f func(*yaml.Node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range n.Content {
		walkNodes(c, f)
	}
}

func dump(n *yaml.Node) string {
	out, err := yaml.Marshal(n)
	if err != nil {
		return err.Error()
	}
	return string(out)
}

var renderParams = []map[string]any{
	{"path.basename": "alpha", "name": "a", "values.x": "1"},
	{"path.basename": "beta", "name": "{{name}}", "values.x": "2"},
	{"path": map[string]any{"basename": "gamma"}, "name": "c"},
}

func TestRenderedOnParityTemplates(t *testing.T) {
	files, _ := filepath.Glob("testdata/appset-parity/*.yaml")
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c parityCase
		if err := yaml.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(c.AppSet), &doc); err != nil || len(doc.Content) == 0 {
			continue
		}
		tmpl, err := normalizeAliases(yamlnode.Value(yamlnode.Value(doc.Content[0], "spec"), "template"))
		if err != nil || tmpl == nil {
			continue
		}
		goTmpl := scalarAt(doc.Content[0], "spec.goTemplate") == "true"
		t.Run(filepath.Base(f), func(t *testing.T) { checkRendered(t, tmpl, goTmpl, renderParams) })
		n++
	}
	if n < 10 {
		t.Fatalf("only %d templates", n)
	}
}

func FuzzRendered(f *testing.F) {
	f.Add([]byte("metadata: {name: '{{name}}-x', labels: {'{{name}}': v}}\nspec: {project: p, source: {path: 'a/{{path.basename}}'}}\n"), false, "b")
	f.Add([]byte("metadata: {name: '{{.name}}'}\nspec: {x: [1, '{{.path.basename}}', {y: '{{ .values.x }}'}]}\n"), true, "c")
	f.Add([]byte("a: '{{'\nb: {{name}}\n"), false, "")
	f.Fuzz(func(t *testing.T, data []byte, goTmpl bool, value string) {
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
			return
		}
		tmpl, err := normalizeAliases(doc.Content[0])
		if err != nil {
			return
		}
		params := append([]map[string]any{{"name": value, "path.basename": value,
			"path": map[string]any{"basename": value}, "values": map[string]any{"x": value}}}, renderParams...)
		checkRendered(t, tmpl, goTmpl, params)
	})
}
