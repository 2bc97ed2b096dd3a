// Package yamlnode answers the questions every reader of a yaml.v3 node
// tree asks the same way: the value of a mapping's key, and whether a
// mapping repeats a key. It imports nothing of this module, so argo,
// patch, versions, ordering and syncwindow can all share it.
package yamlnode

import "go.yaml.in/yaml/v3"

// Value returns the value of key in mapping m, or nil when m is not a
// mapping or has no such key. Only scalar keys match, and never a merge
// key (<<): its value is merged, not a value of its own.
func Value(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind == yaml.ScalarNode && k.Tag != "!!merge" && k.Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// Scalar returns n's text when it is a scalar, "" otherwise (nil
// included): the value of a key that must be a string, read leniently.
func Scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// DuplicateKey returns the first repeated key of n's mappings (each
// mapping checked before its children) and the line of its first
// occurrence; nil if there is none. YAML forbids a repeated key and
// readers disagree about which value wins (yqlib edits the first, Argo
// CD and Helm read the last), so every reader refuses one. Only scalar
// keys are compared, by value (quoted and plain are one key); aliases are
// not followed, their target is checked where it is defined.
func DuplicateKey(n *yaml.Node) (key *yaml.Node, first int) {
	if n == nil || n.Kind == yaml.AliasNode {
		return nil, 0
	}
	if n.Kind == yaml.MappingNode {
		if k, line := repeatedKey(n.Content); k != nil {
			return k, line
		}
	}
	for _, c := range n.Content {
		if k, line := DuplicateKey(c); k != nil {
			return k, line
		}
	}
	return nil, 0
}

// smallMapping is the size up to which a mapping's keys are compared
// pairwise: nearly every mapping of a manifest or versions file is that
// small, and the pairwise loop allocates nothing, which keeps this check
// a small part of the parse it follows (BenchmarkSplitDocs in internal/argo).
const smallMapping = 16

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
