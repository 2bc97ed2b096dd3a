package patch

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// verifier compares the old and the edited file node by node. It is the
// safety net under the byte-level scanning: whatever the scanner or the
// quoting got wrong shows up here as a difference nobody asked for.
type verifier struct {
	old     *tree
	want    map[*yaml.Node]edit // by the edited node of the old tree
	hit     map[*yaml.Node]bool
	changed map[*yaml.Node]*edit
}

func verify(old *tree, out []byte, edits []edit) error {
	nt, err := parse(out)
	if err != nil {
		return fmt.Errorf("edited file does not parse: %s: %w", oneLine(err), ErrVerify)
	}
	if len(nt.docs) != len(old.docs) {
		return fmt.Errorf("edited file has %d documents, not %d: %w", len(nt.docs), len(old.docs), ErrVerify)
	}
	v := verifier{old: old, want: make(map[*yaml.Node]edit, len(edits)), hit: make(map[*yaml.Node]bool, len(edits)),
		changed: make(map[*yaml.Node]*edit, len(edits))}
	for _, e := range edits {
		v.want[e.old] = e
	}
	for i := range old.docs {
		if o, n := old.docNode[i], nt.docNode[i]; (o == nil) != (n == nil) || o != nil && !sameComments(o, n) {
			return fmt.Errorf("document %d: comments changed: %w", i, ErrVerify)
		}
		if err := v.compare(old.docs[i], nt.docs[i]); err != nil {
			return err
		}
	}
	for _, e := range edits {
		if !v.hit[e.old] {
			return fmt.Errorf("%s line %d: edited value not found again: %w", e.path, e.line, ErrVerify)
		}
	}
	return v.checkAliases(nt)
}

func sameComments(o, n *yaml.Node) bool {
	return o.HeadComment == n.HeadComment && o.LineComment == n.LineComment && o.FootComment == n.FootComment
}

// compare walks both trees in step: the old tree's node at an edit's
// position has its counterpart at the same child indexes of the new tree.
func (v *verifier) compare(o, n *yaml.Node) error {
	if e, ok := v.want[o]; ok {
		v.hit[o] = true
		return v.compareEdited(e, o, n)
	}
	if o.Kind != n.Kind || o.Tag != n.Tag || o.Value != n.Value || o.Anchor != n.Anchor ||
		o.Style != n.Style || len(o.Content) != len(n.Content) || !sameComments(o, n) {
		return fmt.Errorf("%s line %d: unexpected change: %w", v.old.pathOf(o), o.Line, ErrVerify)
	}
	for i := range o.Content {
		if err := v.compare(o.Content[i], n.Content[i]); err != nil {
			return err
		}
	}
	return nil
}

// compareEdited checks an edited node: it must be a string scalar equal to
// the new value (or keep the explicit tag it had), with its anchor and
// comments untouched.
func (v *verifier) compareEdited(e edit, o, n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.Value != e.want {
		return fmt.Errorf("%s line %d: reads back as %q, not %q: %w", e.path, e.line, n.Value, e.want, ErrVerify)
	}
	keptTag := o.Kind == yaml.ScalarNode && o.Style&yaml.TaggedStyle != 0 && n.Style&yaml.TaggedStyle != 0 && n.Tag == o.Tag
	if e.tag != "" {
		if n.Tag != e.tag {
			return fmt.Errorf("%s line %d: reads back as %s, not %s: %w", e.path, e.line, n.Tag, e.tag, ErrVerify)
		}
	} else if n.Tag != "!!str" && !keptTag {
		return fmt.Errorf("%s line %d: reads back as %s, not a string: %w", e.path, e.line, n.Tag, ErrVerify)
	}
	if n.Anchor != o.Anchor || !sameComments(o, n) {
		return fmt.Errorf("%s line %d: anchor or comments changed: %w", e.path, e.line, ErrVerify)
	}
	v.changed[n] = &e
	return nil
}

// checkAliases rejects edits inside anchored nodes that an alias (or a
// merge key) refers to: the aliases would silently change with them.
func (v *verifier) checkAliases(t *tree) error {
	memo := map[*yaml.Node]*edit{}
	var within func(n *yaml.Node) *edit
	within = func(n *yaml.Node) *edit {
		if n == nil || n.Kind == yaml.AliasNode {
			return nil
		}
		if e, ok := memo[n]; ok {
			return e
		}
		memo[n] = v.changed[n]
		for _, c := range n.Content {
			if memo[n] != nil {
				break
			}
			memo[n] = within(c)
		}
		return memo[n]
	}
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		if n.Kind == yaml.AliasNode {
			if e := within(n.Alias); e != nil {
				return fmt.Errorf("%s line %d: value is used through alias *%s at %s line %d, which would change too: %w",
					e.path, e.line, n.Value, t.pathOf(n), n.Line, ErrVerify)
			}
		}
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range t.docs {
		if err := walk(d); err != nil {
			return err
		}
	}
	return nil
}
