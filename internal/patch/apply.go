package patch

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Change sets the scalar at Target to New.
type Change struct {
	Target Target
	New    string
	// Tag is the YAML type New must read back as: "" (or "!!str") for a
	// string, or "!!int", "!!float", "!!bool" to keep a number or flag a
	// number when the promoted value is one (replicas: 3 stays an int).
	Tag string
}

func apply(data []byte, t *tree, changes []Change) ([]byte, error) {
	wanted := make(map[pos]*yaml.Node, len(changes))
	for _, c := range changes {
		p := pos{c.Target.Doc, c.Target.Line, c.Target.Column}
		if _, dup := wanted[p]; dup {
			return nil, fmt.Errorf("%s line %d column %d: two changes for one value", c.Target.Path, p.line, p.col)
		}
		wanted[p] = nil
	}
	locateNodes(t.docs, wanted)
	starts := lineStarts(data)
	var edits []edit
	for _, c := range changes {
		e, ok, err := t.prepare(data, starts, wanted, c)
		if err != nil {
			return nil, err
		}
		if ok {
			edits = append(edits, e)
		}
	}
	if len(edits) == 0 {
		return bytes.Clone(data), nil
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	for i := 1; i < len(edits); i++ {
		if edits[i].start < edits[i-1].end {
			return nil, fmt.Errorf("%s and %s overlap in the file: %w", edits[i-1].path, edits[i].path, ErrUnsupported)
		}
	}
	out := splice(data, edits)
	if err := verify(t, out, edits); err != nil {
		return nil, err
	}
	return out, nil
}

// pos identifies a node by where the parser reports it.
type pos struct{ doc, line, col int }

// edit is one prepared replacement.
type edit struct {
	span
	text string // replaces data[start:end]
	want string // the value the node must read back as
	tag  string // the non-string tag it must read back with, "" for a string
	path string
	line int
	old  *yaml.Node // the node in the original tree
}

// locateNodes fills wanted (position -> nil) with the non-key node at
// each position. A collection can share its position with nothing but its
// own first key, so the only collisions are between empty nodes; the
// first one in document order wins and the value check in prepare rejects
// a wrong pick.
func locateNodes(docs []*yaml.Node, wanted map[pos]*yaml.Node) {
	left := len(wanted)
	var walk func(n *yaml.Node, doc int)
	walk = func(n *yaml.Node, doc int) {
		if left == 0 {
			return
		}
		if cur, ok := wanted[pos{doc, n.Line, n.Column}]; ok && cur == nil && n.Line > 0 {
			wanted[pos{doc, n.Line, n.Column}] = n
			left--
		}
		for i, c := range n.Content {
			if n.Kind == yaml.MappingNode && i%2 == 0 {
				continue
			}
			walk(c, doc)
		}
	}
	for i, d := range docs {
		walk(d, i)
	}
}

// prepare checks one change against the file and renders its new text. It
// returns ok=false for a change that would not change the value.
func (tr *tree) prepare(data []byte, starts []int, nodes map[pos]*yaml.Node, c Change) (edit, bool, error) {
	t := c.Target
	n := nodes[pos{t.Doc, t.Line, t.Column}]
	if n == nil {
		return edit{}, false, fmt.Errorf("%s: no value at document %d line %d column %d: %w", t.Path, t.Doc, t.Line, t.Column, ErrNotFound)
	}
	path := tr.pathOf(n)
	r := resolve(n)
	if r == nil || r.Kind != yaml.ScalarNode {
		return edit{}, false, fmt.Errorf("%s line %d: %w", path, t.Line, ErrNotScalar)
	}
	if r.Value != t.Value {
		return edit{}, false, fmt.Errorf("%s line %d: file has %q, target expected %q: %w", path, t.Line, r.Value, t.Value, ErrNotFound)
	}
	if c.New == r.Value {
		return edit{}, false, nil
	}
	if t.Templated || strings.Contains(r.Value, "{{") {
		return edit{}, false, fmt.Errorf("%s line %d: templated value %q: %w", path, t.Line, r.Value, ErrUnsupported)
	}
	p := tr.parent(n)
	flow := p != nil && p.Style&yaml.FlowStyle != 0
	sp, err := locate(data, starts, n, flow)
	if err != nil {
		return edit{}, false, fmt.Errorf("%s line %d: %w", path, t.Line, err)
	}
	if sp.tag != "" && n.Style&(yaml.TaggedStyle|yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) == 0 {
		// A tag property the parser dropped on a plain value: the
		// non-specific tag (! or !<!>). yaml.v3 types the value by its
		// text (! 5 is an int), Helm's and Argo CD's reader and the YAML
		// spec make it a string, so a plain value there does not read the
		// same to all of them (a quoted one is a string to all).
		return edit{}, false, fmt.Errorf("%s line %d: non-specific tag %s: YAML readers disagree on the value's type: %w",
			path, t.Line, sp.tag, ErrUnsupported)
	}
	tag := ""
	if c.Tag != "" && c.Tag != "!!str" {
		tag = c.Tag
	}
	text, err := render(c.New, n, flow, sp.tag)
	if tag != "" {
		text, err = renderTyped(c.New, tag, flow, sp.tag)
	}
	if err != nil {
		return edit{}, false, fmt.Errorf("%s line %d: %w", path, t.Line, err)
	}
	return edit{span: sp, text: text, want: c.New, tag: tag, path: path, line: t.Line, old: n}, true, nil
}

// splice copies data with every edit's bytes replaced; edits are sorted and
// do not overlap.
func splice(data []byte, edits []edit) []byte {
	var b bytes.Buffer
	b.Grow(len(data) + 16*len(edits))
	last := 0
	for _, e := range edits {
		b.Write(data[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(data[last:])
	return b.Bytes()
}
