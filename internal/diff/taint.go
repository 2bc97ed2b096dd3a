package diff

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// taintPrefix marks a string that holds a copy of a Secret value reached
// through a YAML anchor and alias, outside the Secret's data. Such a string
// is redacted like the Secret value itself: compared in memory, never
// shown. The NUL bytes keep it apart from anything a template writes.
const taintPrefix = "\x00gitops-promote-redact\x00"

func tainted(v any) bool {
	s, ok := v.(string)
	return ok && strings.HasPrefix(s, taintPrefix)
}

// maxAliasCopies bounds the nodes copied while expanding aliases of Secret
// values, so that a "billion laughs" document fails instead of eating
// memory.
const maxAliasCopies = 100000

// isSensitiveKey reports whether the value under key k of a mapping is
// sensitive: a Secret's data and stringData (secret says whether the
// mapping is a Secret), or a last-applied-configuration at any depth.
func isSensitiveKey(k string, secret bool) bool {
	return k == LastAppliedAnnotation || secret && (k == "data" || k == "stringData")
}

// taint finds every anchor whose content is, or flows into, a sensitive
// value (a Secret's data or stringData, a last-applied-configuration, at
// any depth) and makes every copy of it outside a sensitive place a
// tainted string: an alias is expanded into a tainted copy, an anchor
// defined outside and aliased inside is tainted where it is defined.
// Resource identity (kind, apiVersion, metadata.name and namespace) is
// never tainted.
func taint(doc *yaml.Node) error {
	t := &tainter{inside: map[*yaml.Node]bool{}, keys: map[*yaml.Node]bool{}, tainted: map[*yaml.Node]bool{}}
	t.walk(doc, false)
	var work []*yaml.Node
	for n, in := range t.inside {
		if in {
			work = append(work, n)
		}
	}
	for _, a := range t.aliases {
		if a.sensitive {
			work = append(work, a.node.Alias)
		}
	}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		if n == nil || t.tainted[n] {
			continue
		}
		t.tainted[n] = true
		work = append(work, aliasTargets(n, 0)...)
	}
	if len(t.tainted) == 0 {
		return nil
	}
	for n := range t.tainted {
		switch {
		case t.inside[n]:
		case t.keys[n]:
			*n = redactedKey(n)
		default:
			markScalars(n, 0)
		}
	}
	for _, a := range t.aliases {
		if a.sensitive || !t.tainted[a.node.Alias] {
			continue
		}
		if a.key {
			*a.node = redactedKey(a.node)
			continue
		}
		cp, err := t.expand(a.node.Alias)
		if err != nil {
			return err
		}
		markScalars(cp, 0)
		*a.node = *cp
	}
	return nil
}

// redactedKey replaces a mapping key that holds a Secret value; its
// position keeps two such keys of one mapping apart.
func redactedKey(n *yaml.Node) yaml.Node {
	return yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str",
		Value: "<redacted key at line " + strconv.Itoa(n.Line) + ":" + strconv.Itoa(n.Column) + ">"}
}

type aliasUse struct {
	node      *yaml.Node
	sensitive bool // inside a sensitive value
	key       bool // used as a mapping key
}

type tainter struct {
	inside  map[*yaml.Node]bool // anchored nodes -> defined inside a sensitive value
	keys    map[*yaml.Node]bool // anchored nodes that are mapping keys
	aliases []aliasUse
	tainted map[*yaml.Node]bool
	copies  int
}

func (t *tainter) walk(n *yaml.Node, sensitive bool) {
	if n == nil {
		return
	}
	if n.Anchor != "" {
		t.inside[n] = sensitive
	}
	switch n.Kind {
	case yaml.AliasNode:
		t.aliases = append(t.aliases, aliasUse{node: n, sensitive: sensitive})
	case yaml.MappingNode:
		secret := isSecretMapping(n)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.AliasNode {
				t.aliases = append(t.aliases, aliasUse{node: k, sensitive: sensitive, key: true})
			} else {
				if k.Anchor != "" {
					t.keys[k] = true
				}
				t.walk(k, sensitive)
			}
			t.walk(v, sensitive || isSensitiveKey(resolve(k).Value, secret))
		}
	default:
		for _, c := range n.Content {
			t.walk(c, sensitive)
		}
	}
}

// isSecretMapping: a mapping whose kind is Secret, at any depth.
func isSecretMapping(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if resolve(n.Content[i]).Value == "kind" {
			v := resolve(n.Content[i+1])
			return v.Kind == yaml.ScalarNode && v.Value == "Secret"
		}
	}
	return false
}

func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n == nil {
		return &yaml.Node{}
	}
	return n
}

// aliasTargets lists the anchors n's content reaches through aliases: they
// carry the same sensitive value.
func aliasTargets(n *yaml.Node, depth int) []*yaml.Node {
	if n == nil || depth > maxDepth {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		return []*yaml.Node{n.Alias}
	}
	var out []*yaml.Node
	for _, c := range n.Content {
		out = append(out, aliasTargets(c, depth+1)...)
	}
	return out
}

// expand deep-copies n with every alias inside it resolved.
func (t *tainter) expand(n *yaml.Node) (*yaml.Node, error) {
	return t.expandDepth(n, 0)
}

func (t *tainter) expandDepth(n *yaml.Node, depth int) (*yaml.Node, error) {
	if t.copies++; t.copies > maxAliasCopies || depth > maxDepth {
		return nil, fmt.Errorf("aliases of Secret values expand beyond %d nodes", maxAliasCopies)
	}
	if n.Kind == yaml.AliasNode {
		return t.expandDepth(n.Alias, depth+1)
	}
	cp := *n
	cp.Anchor = ""
	cp.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		e, err := t.expandDepth(c, depth+1)
		if err != nil {
			return nil, err
		}
		cp.Content[i] = e
	}
	return &cp, nil
}

// markScalars turns every scalar value under n into a tainted string.
// Mapping keys stay: keys are shown, as a Secret's keys are.
func markScalars(n *yaml.Node, depth int) {
	if n == nil || depth > maxDepth {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if !strings.HasPrefix(n.Value, taintPrefix) {
			n.Value = taintPrefix + n.Value
		}
		n.Tag, n.Style = "!!str", 0
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			markScalars(n.Content[i], depth+1)
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, c := range n.Content {
			markScalars(c, depth+1)
		}
	}
}
