// Package versions reads versions/<env>.yaml files and decides what a
// promotion changes: which fields of which components move, and whether the
// policy (pinned versions, no silent downgrades, promotion order) allows it.
// It is pure: bytes in, values out.
package versions

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/patch"
	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// ChartVersionKey is the field of a component that pins its chart.
const ChartVersionKey = "chartVersion"

var (
	// ErrParse marks a versions file that is not valid YAML.
	ErrParse = errors.New("versions file does not parse")
	// ErrMissing marks a component or field absent from a versions file.
	ErrMissing = errors.New("missing in versions file")
)

// Field is one scalar key of a component.
type Field struct {
	Key   string
	Value string
	Line  int
	// Tag is the value's YAML type when it is not a string ("!!int" for
	// replicas: 3), so a promotion writes it back with the same type.
	Tag string
}

// Component is one configured component as found in a versions file.
type Component struct {
	Key    string  // config key, e.g. "dlt-node.backend"
	Chart  string  // chart its chartVersion pins
	Found  bool    // false when the key path is absent from the file
	Fields []Field // scalar keys in file order; nested mappings are not fields
}

// Field returns the named field.
func (c Component) Field(key string) (Field, bool) {
	for _, f := range c.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// File is a parsed versions file restricted to the configured components.
type File struct {
	Path       string
	Components []Component // in config order
}

// Component returns the component with config key k.
func (f *File) Component(k string) (Component, bool) {
	for _, c := range f.Components {
		if c.Key == k {
			return c, true
		}
	}
	return Component{}, false
}

// Read parses a versions file and extracts every configured component.
// A component absent from the file is returned with Found=false rather than
// as an error: callers decide whether that matters.
func Read(path string, data []byte, comps []config.Component) (*File, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading %s: %s: %w", path, oneLine(err), ErrParse)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if err := noDuplicateKeys(path, root); err != nil {
		return nil, err
	}
	f := &File{Path: path}
	for _, c := range comps {
		comp := Component{Key: c.Key, Chart: c.Chart}
		if n := lookup(root, c.Path); n != nil && n.Kind == yaml.MappingNode {
			comp.Found = true
			comp.Fields = scalarFields(n)
		}
		f.Components = append(f.Components, comp)
	}
	return f, nil
}

func lookup(n *yaml.Node, path []string) *yaml.Node {
	for _, seg := range path {
		n = resolveAlias(n)
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == seg {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return resolveAlias(n)
}

// noDuplicateKeys rejects a mapping that repeats a key: YAML forbids it,
// and readers disagree about which value wins.
func noDuplicateKeys(path string, n *yaml.Node) error {
	if k, first := yamlnode.DuplicateKey(n); k != nil {
		return &patch.DuplicateKeyError{File: path, Key: k.Value, Line: k.Line, First: first}
	}
	return nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode {
		return n.Alias
	}
	return n
}

func scalarFields(m *yaml.Node) []Field {
	var out []Field
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolveAlias(m.Content[i+1])
		if v != nil && v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
			f := Field{Key: k.Value, Value: v.Value, Line: v.Line}
			if t := v.ShortTag(); t == "!!int" || t == "!!float" || t == "!!bool" {
				f.Tag = t
			}
			out = append(out, f)
		}
	}
	return out
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// ResolvesAs returns the YAML type a plain scalar s reads as ("!!str",
// "!!int", ...).
func ResolvesAs(s string) string {
	var n yaml.Node
	if yaml.Unmarshal([]byte(s), &n) != nil || len(n.Content) != 1 || n.Content[0].Kind != yaml.ScalarNode || n.Content[0].Value != s {
		return "!!str"
	}
	return n.Content[0].ShortTag()
}
