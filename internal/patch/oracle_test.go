package patch

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

// checkOracle parses both files with yaml/v4 and compares them node by
// node; only the node at the target's position may differ, and it must be
// the new string.
func checkOracle(t *testing.T, old, out []byte, tg Target, newValue string) {
	t.Helper()
	oldDocs, err := decodeOracle(old)
	if err != nil {
		return // the parsers disagree on the input; nothing to compare
	}
	newDocs, err := decodeOracle(out)
	if err != nil {
		t.Fatalf("edited file does not parse with yaml/v4: %v\n%q", err, out)
	}
	if len(oldDocs) != len(newDocs) {
		t.Fatalf("document count %d -> %d", len(oldDocs), len(newDocs))
	}
	o := oracle{tg: tg, newValue: newValue}
	for i := range oldDocs {
		// Comments as a multiset per document: the parser attaches one to
		// a node by the style of the values around it, and quoting the
		// edited value may move it (see sameComments).
		if a, b := oracleComments(oldDocs[i], nil), oracleComments(newDocs[i], nil); !slices.Equal(a, b) {
			t.Fatalf("document %d: comments %q -> %q", i, a, b)
		}
		o.compare(t, oldDocs[i], newDocs[i], i == tg.Doc)
	}
	if o.edited == nil {
		return // yaml/v4 reports other positions than yaml.v3 for this input
	}
	for _, d := range newDocs {
		o.checkAliases(t, d)
	}
}

// oracleComments returns the non-empty comments under n, sorted.
func oracleComments(n *yaml.Node, out []string) []string {
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
			if c != "" {
				out = append(out, c)
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	slices.Sort(out)
	return out
}

func decodeOracle(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, &n)
	}
}

// oracle compares yaml/v4 trees of the file before and after one edit.
type oracle struct {
	tg       Target
	newValue string
	edited   *yaml.Node
}

func (o *oracle) compare(t *testing.T, a, b *yaml.Node, targetDoc bool) {
	t.Helper()
	if targetDoc && a.Line == o.tg.Line && a.Column == o.tg.Column && (a.Kind == yaml.ScalarNode || a.Kind == yaml.AliasNode) {
		keptTag := a.Kind == yaml.ScalarNode && a.Style&yaml.TaggedStyle != 0 && b.Style&yaml.TaggedStyle != 0 && a.Tag == b.Tag
		// yaml/v4 leaves the non-specific tag ! unresolved; on a scalar
		// the YAML spec makes it a string.
		str := b.Tag == "!!str" || b.Tag == "!"
		if b.Kind != yaml.ScalarNode || b.Value != o.newValue || !str && !keptTag || b.Anchor != a.Anchor {
			t.Fatalf("%s: edited node reads %s %q anchor %q, want string %q", o.tg.Path, b.Tag, b.Value, b.Anchor, o.newValue)
		}
		o.edited = b
		return
	}
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		len(a.Content) != len(b.Content) {
		t.Fatalf("unexpected change at line %d column %d: %s %q -> %s %q", a.Line, a.Column, a.Tag, a.Value, b.Tag, b.Value)
	}
	for i := range a.Content {
		o.compare(t, a.Content[i], b.Content[i], targetDoc)
	}
}

// checkAliases fails when an alias of the new file expands to the edited
// node: the edit would then have changed more than one value.
func (o *oracle) checkAliases(t *testing.T, n *yaml.Node) {
	t.Helper()
	if n.Kind == yaml.AliasNode && contains(n.Alias, o.edited) {
		t.Fatalf("alias *%s at line %d expands to the edited value", n.Value, n.Line)
	}
	for _, c := range n.Content {
		o.checkAliases(t, c)
	}
}

func contains(n, target *yaml.Node) bool {
	if n == nil || n.Kind == yaml.AliasNode {
		return false
	}
	if n == target {
		return true
	}
	for _, c := range n.Content {
		if contains(c, target) {
			return true
		}
	}
	return false
}
