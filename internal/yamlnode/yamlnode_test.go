package yamlnode

import (
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func parse(t *testing.T, doc string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	return n.Content[0]
}

func TestValue(t *testing.T) {
	tests := []struct {
		name, doc, key string
		want           string // the value's text, "-" for nil
	}{
		{"found", "a: 1\nb: 2\n", "b", "2"},
		{"missing", "a: 1\n", "b", "-"},
		{"first of two", "a: 1\na: 2\n", "a", "1"},
		{"quoted key", "\"a\": x\n", "a", "x"},
		{"not a mapping", "[a, b]\n", "a", "-"},
		{"merge key is no key", "<<: {a: 1}\n", "<<", "-"},
		{"quoted << is a key", "'<<': x\n", "<<", "x"},
		{"complex key is no key", "? [a]\n: x\n", "", "-"},
		{"alias key is no key", "a: &k b\n*k : x\n", "k", "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := "-"
			if v := Value(parse(t, tt.doc), tt.key); v != nil {
				got = v.Value
			}
			if got != tt.want {
				t.Errorf("Value(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
	if Value(nil, "a") != nil {
		t.Error("Value(nil) is not nil")
	}
}

func TestDuplicateKey(t *testing.T) {
	tests := []struct {
		name, doc   string
		key         string
		line, first int
	}{
		{"none", "a: 1\nb: {c: 1, d: 2}\n", "", 0, 0},
		{"top level", "a: 1\nb: 2\na: 3\n", "a", 3, 1},
		{"nested in a list", "l:\n  - x: 1\n    x: 2\n", "x", 3, 2},
		{"flow mapping", "m: {k: 1, k: 2}\n", "k", 1, 1},
		{"quoted and plain are one key", "\"k\": 1\nk: 2\n", "k", 2, 1},
		{"merge keys repeated", "a: &a {x: 1}\nb:\n  <<: *a\n  <<: *a\n", "<<", 4, 3},
		{"alias not followed", "a: &a {x: 1}\nb: *a\nc: *a\n", "", 0, 0},
		{"parent before child", "a: {x: 1, x: 2}\nb: 1\nb: 2\n", "b", 3, 2},
		{"big mapping", bigMapping(40, "k7"), "k7", 41, 8},
		{"big mapping without repeat", bigMapping(40, ""), "", 0, 0},
		{"just above small", bigMapping(smallMapping, "k0"), "k0", smallMapping + 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, first := DuplicateKey(parse(t, tt.doc))
			got, line := "", 0
			if k != nil {
				got, line = k.Value, k.Line
			}
			if got != tt.key || line != tt.line || first != tt.first {
				t.Errorf("got %q at %d (first %d), want %q at %d (first %d)", got, line, first, tt.key, tt.line, tt.first)
			}
		})
	}
}

// bigMapping has n keys k0..k(n-1), one per line, then repeat if set.
func bigMapping(n int, repeat string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("k" + strconv.Itoa(i) + ": v\n")
	}
	if repeat != "" {
		b.WriteString(repeat + ": again\n")
	}
	return b.String()
}
