package patch

import (
	"fmt"
	"slices"

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
	if err := sameFileComments(old, nt); err != nil {
		return err
	}
	for i := range old.docs {
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

// sameFileComments checks that the edit lost, added or altered no
// comment. Two files blockyaml parsed compare the comments it lists, one
// per line, as multisets. Otherwise both are compared as yaml.v3 attaches
// them, document by document: when only one of the two is plain (an edit
// quoted a value in a way blockyaml leaves to yaml.v3), that one is
// parsed again by yaml.v3 for its comments, the nodes compared stay the
// same.
func sameFileComments(old, nt *tree) error {
	if old.plain && nt.plain {
		for i := range old.docs {
			if (old.docNode[i] == nil) != (nt.docNode[i] == nil) {
				return fmt.Errorf("document %d: comments changed: %w", i, ErrVerify)
			}
		}
		if !sameStrings(old.comments, nt.comments) {
			return fmt.Errorf("comments changed: %w", ErrVerify)
		}
		return nil
	}
	oc, nc := old, nt
	var err error
	if oc.plain {
		if oc, err = parseFull(old.src); err != nil {
			return fmt.Errorf("original file does not parse: %s: %w", oneLine(err), ErrVerify)
		}
	}
	if nc.plain {
		if nc, err = parseFull(nt.src); err != nil {
			return fmt.Errorf("edited file does not parse: %s: %w", oneLine(err), ErrVerify)
		}
	}
	if len(oc.docs) != len(nc.docs) {
		return fmt.Errorf("edited file has %d documents, not %d: %w", len(nc.docs), len(oc.docs), ErrVerify)
	}
	for i := range oc.docs {
		if (oc.docNode[i] == nil) != (nc.docNode[i] == nil) || !sameComments(oc.docRoot(i), nc.docRoot(i)) {
			return fmt.Errorf("document %d: comments changed: %w", i, ErrVerify)
		}
	}
	return nil
}

// sameStrings reports whether a and b hold the same strings, in any order.
func sameStrings(a, b []string) bool {
	if slices.Equal(a, b) {
		return true
	}
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// sameComments reports whether two documents hold the same comments,
// wherever the parser attached them. Which node a comment lands on depends
// on the style of the scalars around it: yaml.v3 gives a comment after the
// last value of a document to that value's key (or item) when the value is
// plain and to the document when it is quoted, so quoting a value (v1 ->
// "20240101") moves it. A splice cannot move a comment in the file, only
// lose, add or alter one, which is what this compares: the comments as a
// multiset.
func sameComments(o, n *yaml.Node) bool {
	a, b := comments(o, nil), comments(n, nil)
	if slices.Equal(a, b) {
		return true
	}
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// comments appends the non-empty comments of n and the nodes under it.
func comments(n *yaml.Node, out []string) []string {
	for _, c := range [...]string{n.HeadComment, n.LineComment, n.FootComment} {
		if c != "" {
			out = append(out, c)
		}
	}
	for _, c := range n.Content {
		out = comments(c, out)
	}
	return out
}

// compare walks both trees in step: the old tree's node at an edit's
// position has its counterpart at the same child indexes of the new tree.
func (v *verifier) compare(o, n *yaml.Node) error {
	if e, ok := v.want[o]; ok {
		v.hit[o] = true
		return v.compareEdited(e, o, n)
	}
	if o.Kind != n.Kind || o.Tag != n.Tag || o.Value != n.Value || o.Anchor != n.Anchor ||
		o.Style != n.Style || len(o.Content) != len(n.Content) {
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
// the new value (or keep the explicit tag it had), with its anchor
// untouched (comments are compared per document).
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
	if n.Anchor != o.Anchor {
		return fmt.Errorf("%s line %d: anchor changed: %w", e.path, e.line, ErrVerify)
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
