package config

import "go.yaml.in/yaml/v3"

// locator finds the line of a setting in the parsed file, so that a rule
// broken after decoding (a name listed twice, a bad glob) is reported as
// ".promote.yaml:LINE: ...", like the decoder's own errors.
type locator struct{ root *yaml.Node }

// line returns the line of the value at path (mapping keys as strings,
// sequence indexes as ints), else of the deepest part of path found; 0
// when not even the first part is in the file.
func (l locator) line(path ...any) int {
	n, line := l.root, 0
	for _, p := range path {
		if n = step(n, p); n == nil {
			break
		}
		line = n.Line
	}
	return line
}

// step is the child of n at p: the value of key p in a mapping, item p
// of a sequence; nil if there is none.
func step(n *yaml.Node, p any) *yaml.Node {
	if n == nil {
		return nil
	}
	switch k := p.(type) {
	case string:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					return n.Content[i+1]
				}
			}
		}
	case int:
		if n.Kind == yaml.SequenceNode && k >= 0 && k < len(n.Content) {
			return n.Content[k]
		}
	}
	return nil
}
