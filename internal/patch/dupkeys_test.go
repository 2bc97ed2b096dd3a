package patch

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDuplicateKeysRefused: a repeated key anywhere (nested, in a flow
// mapping, in a later document, in a sequence item) makes the file
// unreadable for every entry point, with the line of both occurrences.
func TestDuplicateKeysRefused(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want DuplicateKeyError
	}{
		{"helm source", "spec:\n  source:\n    chart: web\n    targetRevision: '1.0.0'\n    targetRevision: '1.0.1'\n",
			DuplicateKeyError{Key: "targetRevision", Line: 5, First: 4}},
		{"flow mapping", "web: {imageTag: v1, imageTag: v2}\n", DuplicateKeyError{Key: "imageTag", Line: 1, First: 1}},
		{"second document", "a: 1\n---\nb: 1\nc: 2\nb: 3\n", DuplicateKeyError{Key: "b", Line: 5, First: 3}},
		{"sequence item", "s:\n  - x: 1\n    x: 2\n", DuplicateKeyError{Key: "x", Line: 3, First: 2}},
		{"quoted and plain", "a: 1\n\"a\": 2\n", DuplicateKeyError{Key: "a", Line: 2, First: 1}},
		{"large mapping", largeMapping(20) + "k3: again\n", DuplicateKeyError{Key: "k3", Line: 21, First: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			var de *DuplicateKeyError
			if !errors.As(err, &de) || !errors.Is(err, ErrDuplicateKey) {
				t.Fatalf("Parse: %v, want a DuplicateKeyError", err)
			}
			if diff := cmp.Diff(tt.want, *de); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if _, err := HelmSources([]byte(tt.in)); !errors.Is(err, ErrDuplicateKey) {
				t.Errorf("HelmSources: %v", err)
			}
			if _, err := Find([]byte(tt.in), []string{"a"}); !errors.Is(err, ErrDuplicateKey) {
				t.Errorf("Find: %v", err)
			}
		})
	}
	// The same key in different mappings, and an alias to a mapping, are fine.
	for _, ok := range []string{"a: {x: 1}\nb: {x: 1}\n", "a: &a {x: 1}\nb: *a\nc: {<<: *a, y: 2}\n"} {
		if _, err := Parse([]byte(ok)); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
}

// largeMapping has n keys k0..k(n-1), one a line: more than the pairwise
// comparison handles.
func largeMapping(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d: v\n", i)
	}
	return b.String()
}
