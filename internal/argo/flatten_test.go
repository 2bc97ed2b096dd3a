package argo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlatten: the template parameters and a selector's labels flatten
// nested data the same way (one walk, flattenTo serves both).
func TestFlatten(t *testing.T) {
	in := map[string]any{
		"path":    map[string]any{"basename": "web", "segments": []string{"apps", "web"}},
		"list":    []any{"a", map[string]any{"x": 1.5}},
		"empty":   map[string]any{},
		"none":    []any{},
		"labels":  map[string]string{"team": "core"},
		"enabled": true,
	}
	want := map[string]string{
		"path.basename": "web", "path.segments": "[apps web]",
		"list.0": "a", "list.1.x": "1.5", "labels.team": "core", "enabled": "true",
	}
	if diff := cmp.Diff(want, flattenParams(in)); diff != "" {
		t.Errorf("flattenParams (-want +got):\n%s", diff)
	}
	got := flatten(in)
	for k, v := range want {
		if k == "labels.team" {
			continue // template parameters come from YAML: no map[string]string
		}
		if got[k] != v {
			t.Errorf("flatten[%q] = %v, want %q", k, got[k], v)
		}
	}
}

// TestFlattenCollisionStable: where two paths flatten to one key, the
// same value wins every time (the walk was in map order for selectors).
func TestFlattenCollisionStable(t *testing.T) {
	in := map[string]any{"a": map[string]any{"b": "nested"}, "a.b": "dotted", "c": "x"}
	for range 50 {
		if got := flattenParams(in)["a.b"]; got != "dotted" {
			t.Fatalf("a.b = %q, want the later key in order, dotted", got)
		}
	}
}
