package argo

import (
	"fmt"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// scalarAt returns the scalar value at a dotted key path, "" if absent.
func scalarAt(n *yaml.Node, keys ...string) string {
	for _, k := range keys {
		for _, part := range strings.Split(k, ".") {
			n = yamlnode.Value(n, part)
		}
	}
	return yamlnode.Scalar(n)
}

// isNull reports whether n is absent or an explicit YAML null.
func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// checkKeys rejects keys outside allowed. Argo CD's CRD schema makes the
// API server refuse unknown fields, so a typo like valueFile would never
// sync; silently ignoring it here would render something Argo CD never
// would.
func checkKeys(n *yaml.Node, what string, allowed ...string) error {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s: must be a mapping", n.Line, what)
	}
outer:
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		for _, a := range allowed {
			if k.Value == a {
				continue outer
			}
		}
		return fmt.Errorf("line %d: %s: unknown field %q", k.Line, what, k.Value)
	}
	return nil
}

// hasAliases reports whether n uses anchors' aliases or merge keys.
func hasAliases(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if n.Kind == yaml.AliasNode || n.Tag == "!!merge" {
		return true
	}
	for _, c := range n.Content {
		if hasAliases(c) {
			return true
		}
	}
	return false
}

// normalizeAliases expands aliases and merge keys by a round trip through
// yaml's own decoder, which guards against alias bombs; the walks over the
// tree later (templating above all) can then treat it as a plain tree.
// Line numbers inside such a document are lost, the document's own kept.
func normalizeAliases(n *yaml.Node) (*yaml.Node, error) {
	if !hasAliases(n) {
		return n, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	var out yaml.Node
	if err := out.Encode(v); err != nil {
		return nil, err
	}
	setLine(&out, n.Line)
	return &out, nil
}

func setLine(n *yaml.Node, line int) {
	n.Line = line
	for _, c := range n.Content {
		setLine(c, line)
	}
}

// copyNode deep-copies a plain (alias-free) tree.
func copyNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = copyNode(x)
	}
	return &c
}

// canonicalYAML re-encodes n with sorted keys and no comments, so that
// equal content hashes equally; nil for an absent or null node. It is for
// typed blocks (kustomize, jsonnet, plugin), whose scalars Argo CD's API
// schema requires to be of their field's type anyway.
func canonicalYAML(n *yaml.Node) ([]byte, error) {
	if isNull(n) {
		return nil, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return yaml.Marshal(v)
}

// canonicalYAML11 is canonicalYAML for untyped data (helm.valuesObject),
// read as Argo CD receives it (see decode11): `enabled: yes` is true.
func canonicalYAML11(n *yaml.Node) ([]byte, error) {
	if isNull(n) {
		return nil, nil
	}
	v, err := decode11(n)
	if err != nil {
		return nil, err
	}
	return yaml.Marshal(v)
}

// decode11 decodes n the way Kubernetes tooling (sigs.k8s.io/yaml, which
// kubectl and Argo CD use) reads YAML into untyped data: YAML 1.1 scalars
// (yes, on and off are booleans), then a JSON round trip (numbers are
// float64, keys strings). Generator elements and files, valuesObject and
// the other free-form blocks reach Argo CD that way.
func decode11(n *yaml.Node) (any, error) {
	if isNull(n) {
		return nil, nil
	}
	if n.Kind == yaml.SequenceNode && len(n.Content) > 1 && !hasAnchors(n) {
		// yaml.v3's emitter keeps every event of a document until it ends,
		// so a long list (a list generator's elements) costs more than its
		// length once encoded whole: its items are decoded one by one,
		// which is the same without anchors to share between them.
		out := make([]any, len(n.Content))
		for i, item := range n.Content {
			v, err := decode11(item)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	text, err := yaml.Marshal(n)
	if err != nil {
		return nil, err
	}
	return unmarshal11(text)
}

// unmarshal11 is decode11 for YAML text.
func unmarshal11(text []byte) (any, error) {
	var v any
	if err := yamlv2.Unmarshal(text, &v); err != nil {
		return nil, err
	}
	return jsonify(v), nil
}

// hasAnchors reports whether n or anything below it is an alias or has
// an anchor.
func hasAnchors(n *yaml.Node) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAnchors(c) {
			return true
		}
	}
	return false
}
