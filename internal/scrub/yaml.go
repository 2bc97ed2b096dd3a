package scrub

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// AddYAML registers every scalar value of a YAML (or JSON) stream, such as
// a values file; mapping keys are names, not values, and stay readable.
// Text that does not parse (the usual reason it is in an error) is
// registered line by line: the part after "key:" or "- ", and each word of
// it.
func (s *Set) AddYAML(data []byte) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var nodes []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.addLines(string(data))
			return
		}
		nodes = append(nodes, &n)
	}
	for _, n := range nodes {
		s.addNode(n, 0)
	}
}

func (s *Set) addNode(n *yaml.Node, depth int) {
	if n == nil || depth > 10000 {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		s.Add(n.Value)
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			s.addNode(n.Content[i], depth+1)
		}
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			s.addNode(c, depth+1)
		}
	}
	// alias nodes point at an anchored node visited where it is defined
}

// addLines is the fallback for text that is not valid YAML.
func (s *Set) addLines(text string) {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		v := l
		if k, rest, ok := strings.Cut(l, ": "); ok && !strings.ContainsAny(k, `"'`) {
			v = rest
		} else if strings.HasSuffix(l, ":") {
			continue // a key alone
		}
		v = strings.TrimPrefix(v, "- ")
		s.Add(v, strings.Trim(v, `"'`))
		for _, w := range strings.FieldsFunc(v, isYAMLPunct) {
			s.Add(w)
		}
	}
}

func isYAMLPunct(r rune) bool {
	return strings.ContainsRune(" \t{}[],:\"'&*!|>%@`#", r)
}

// AddEnv registers the values of "KEY=value" lines (env files, kustomize
// literals) and any line without "=".
func (s *Set) AddEnv(text string) {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if _, v, ok := strings.Cut(l, "="); ok {
			s.Add(v, strings.Trim(v, `"'`))
			continue
		}
		s.Add(l)
	}
}
