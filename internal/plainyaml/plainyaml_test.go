package plainyaml

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// every has a field of each kind the helpers decode.
type every struct {
	S     string            `yaml:"s"`
	B     bool              `yaml:"b"`
	P     *bool             `yaml:"p"`
	L     []string          `yaml:"l"`
	M     map[string]string `yaml:"m"`
	N     yaml.Node         `yaml:"n"`
	Ns    []yaml.Node       `yaml:"ns"`
	Inner struct {
		S string `yaml:"s"`
	} `yaml:"inner"`
	Items []item `yaml:"items"`
}

type item struct {
	S string   `yaml:"s"`
	P *bool    `yaml:"p"`
	L []string `yaml:"l"`
}

func walkItem(i *item, k string, v *yaml.Node) bool {
	switch k {
	case "s":
		return String(v, &i.S)
	case "p":
		return BoolPtr(v, &i.P)
	case "l":
		return Strings(v, &i.L)
	}
	return true
}

func walkEvery(n *yaml.Node, e *every) bool {
	return Struct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "s":
			return String(v, &e.S)
		case "b":
			return Bool(v, &e.B)
		case "p":
			if Null(v) {
				e.P = nil
				return true
			}
			e.P = new(bool)
			return Bool(v, e.P)
		case "l":
			return Strings(v, &e.L)
		case "m":
			return StringMap(v, &e.M)
		case "n":
			e.N = *v
		case "ns":
			return Nodes(v, &e.Ns)
		case "inner":
			return Key(v, "s", func(v *yaml.Node) bool { return String(v, &e.Inner.S) })
		case "items":
			return List(v, &e.Items, walkItem)
		}
		return true
	})
}

// agrees decodes data's first document with the walk and with yaml.v3;
// it reports whether the walk took it, and fails if the two differ.
func agrees(t *testing.T, data []byte) bool {
	t.Helper()
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return false
	}
	n := doc.Content[0]
	var got, want every
	if !walkEvery(n, &got) {
		return false
	}
	if err := n.Decode(&want); err != nil {
		t.Fatalf("the walk decoded what yaml.v3 refuses (%v):\n%s", err, data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("walk and yaml.v3 differ (-yaml.v3 +walk):\n%s\nin:\n%s", diff, data)
	}
	return true
}

func TestEdges(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		take bool
	}{
		{"s: a\nb: true\np: false\nl: [a, 'b']\nm: {x: y}\nn: [1]\nns: [~, a, {b: c}]\ninner: {s: d}\n", true},
		{"s: ~\nb: null\np: ~\nl: ~\nm: ~\nns: ~\ninner: ~\n", true},
		{"l: []\nm: {}\n", true},
		{"other: [1, {b: c}]\n", true},
		{"s: !!str 5\n", true},
		{"s: a\ns: b\n", false},
		{"x: a\nx: b\n", false},
		{"<<: {s: a}\n", false},
		{"s: 5\n", false},
		{"s: !foo a\n", false},
		{"s: !!binary YQ==\n", false},
		{"m: {a: ~}\n", false},
		{"m: {1: a}\n", false},
		{"m: [a]\n", false},
		{"l: [a, ~]\n", false},
		{"b: yes\n", false},
		{"b: 'true'\n", false},
		{"ns: {a: b}\n", false},
		{"inner: !foo {s: s}\n", false},
		{"p: True\n", true},
		{"items: [{s: a, p: ~, l: [b]}, {p: true}]\n", true},
		{"items: []\nitems2: ~\n", true},
		{"items: ~\n", true},
		{"items: [~]\n", false},
		{"items: [{s: a, s: b}]\n", false},
		{"items: [{p: 1}]\n", false},
		{"items: {s: a}\n", false},
	} {
		if got := agrees(t, []byte(tc.yaml)); got != tc.take {
			t.Errorf("%q: the walk took it: %v, want %v", tc.yaml, got, tc.take)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("s: a\nb: true\np: false\nl: [a, 'b']\nm: {x: y}\nn: [1]\nns: [~, a, {b: c}]\ninner: {s: d}\n"))
	f.Add([]byte("s: ~\nb: FALSE\np: ~\nl: []\nm: {}\nns: ~\ninner: ~\nx: [1, {y: z}]\n"))
	f.Add([]byte("items: [{s: a, p: ~, l: [b]}, {p: true}, {}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		agrees(t, data)
	})
}
