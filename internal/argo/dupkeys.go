package argo

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// ErrDuplicateKey: a mapping of a manifest repeats a key. YAML forbids it,
// and readers disagree about which value wins: Argo CD's repo-server and
// kubectl (sigs.k8s.io/yaml, non-strict) keep the last silently, yqlib
// edits the first, yaml.v3 decoding into a struct refuses the document.
// Whatever is rendered, checked or promoted from such a document could
// differ from what the cluster gets, so every reader refuses it.
var ErrDuplicateKey = errors.New("duplicate mapping key")

// DuplicateKeyError locates the second occurrence of a key in a manifest.
// Its message reads like internal/patch's, which promote prints for the
// files it edits: "file:line: key "k" is already defined at line n".
type DuplicateKeyError struct {
	File        string
	Key         string
	Line, First int // lines of the repeated and of the first occurrence
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("%s:%d: key %q is already defined at line %d: %s", e.File, e.Line, e.Key, e.First, ErrDuplicateKey)
}

func (e *DuplicateKeyError) Unwrap() error { return ErrDuplicateKey }

// smallMapping is the size up to which a mapping's keys are compared
// pairwise: nearly every mapping of a manifest is that small, and the
// pairwise loop allocates nothing, which keeps this check a small part of
// the parse it follows (see docs/benchmarks.md).
const smallMapping = 16

// duplicateKey returns the first repeated key of n's mappings (each
// mapping checked before its children), nil if there is none. Only
// scalar keys are compared, by value, as patch does; aliases are not
// followed, their target is checked where it is defined.
func duplicateKey(n *yaml.Node) (key *yaml.Node, first int) {
	if n == nil || n.Kind == yaml.AliasNode {
		return nil, 0
	}
	if n.Kind == yaml.MappingNode {
		if k, line := repeatedKey(n.Content); k != nil {
			return k, line
		}
	}
	for _, c := range n.Content {
		if k, line := duplicateKey(c); k != nil {
			return k, line
		}
	}
	return nil, 0
}

// repeatedKey checks the keys of one mapping's content (key, value, ...).
func repeatedKey(c []*yaml.Node) (*yaml.Node, int) {
	if len(c) <= 2*smallMapping {
		for i := 2; i+1 < len(c); i += 2 {
			k := c[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			for j := 0; j < i; j += 2 {
				if c[j].Kind == yaml.ScalarNode && c[j].Value == k.Value {
					return k, c[j].Line
				}
			}
		}
		return nil, 0
	}
	seen := make(map[string]int, len(c)/2)
	for i := 0; i+1 < len(c); i += 2 {
		k := c[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if line, ok := seen[k.Value]; ok {
			return k, line
		}
		seen[k.Value] = k.Line
	}
	return nil, 0
}
