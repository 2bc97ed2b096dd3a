package patch

import (
	"fmt"
	"strconv"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
)

// verifier compares the old and the edited file node by node. It is the
// safety net under the byte-level scanning: whatever the scanner or the
// quoting got wrong shows up here as a difference nobody asked for.
type verifier struct {
	want    map[string]edit
	hit     map[string]bool
	changed map[*yqlib.CandidateNode]*edit
}

func verify(oldDocs []*yqlib.CandidateNode, out []byte, edits []edit) error {
	newDocs, err := parse(out)
	if err != nil {
		return fmt.Errorf("edited file does not parse: %s: %w", oneLine(err), ErrVerify)
	}
	if len(newDocs) != len(oldDocs) {
		return fmt.Errorf("edited file has %d documents, not %d: %w", len(newDocs), len(oldDocs), ErrVerify)
	}
	v := verifier{want: map[string]edit{}, hit: map[string]bool{}, changed: map[*yqlib.CandidateNode]*edit{}}
	for _, e := range edits {
		v.want[e.key] = e
	}
	for i := range oldDocs {
		if err := v.compare(oldDocs[i], newDocs[i], strconv.Itoa(i)); err != nil {
			return err
		}
	}
	for _, e := range edits {
		if !v.hit[e.key] {
			return fmt.Errorf("%s line %d: edited value not found again: %w", e.path, e.line, ErrVerify)
		}
	}
	return v.checkAliases(newDocs)
}

func (v *verifier) compare(o, n *yqlib.CandidateNode, key string) error {
	if e, ok := v.want[key]; ok {
		v.hit[key] = true
		return v.compareEdited(e, o, n)
	}
	if o.Kind != n.Kind || o.Tag != n.Tag || o.Value != n.Value || o.Anchor != n.Anchor ||
		o.Style != n.Style || len(o.Content) != len(n.Content) ||
		o.HeadComment != n.HeadComment || o.LineComment != n.LineComment || o.FootComment != n.FootComment {
		return fmt.Errorf("%s line %d: unexpected change: %w", pathOf(o), o.Line, ErrVerify)
	}
	for i := range o.Content {
		if err := v.compare(o.Content[i], n.Content[i], key+"/"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

// compareEdited checks an edited node: it must be a string scalar equal to
// the new value (or keep the explicit tag it had), with its anchor and
// comments untouched.
func (v *verifier) compareEdited(e edit, o, n *yqlib.CandidateNode) error {
	if n.Kind != yqlib.ScalarNode || n.Value != e.want {
		return fmt.Errorf("%s line %d: reads back as %q, not %q: %w", e.path, e.line, n.Value, e.want, ErrVerify)
	}
	keptTag := o.Kind == yqlib.ScalarNode && o.Style&yqlib.TaggedStyle != 0 && n.Style&yqlib.TaggedStyle != 0 && n.Tag == o.Tag
	if e.tag != "" {
		if n.Tag != e.tag {
			return fmt.Errorf("%s line %d: reads back as %s, not %s: %w", e.path, e.line, n.Tag, e.tag, ErrVerify)
		}
	} else if n.Tag != "!!str" && !keptTag {
		return fmt.Errorf("%s line %d: reads back as %s, not a string: %w", e.path, e.line, n.Tag, ErrVerify)
	}
	if n.Anchor != o.Anchor || n.HeadComment != o.HeadComment || n.LineComment != o.LineComment || n.FootComment != o.FootComment {
		return fmt.Errorf("%s line %d: anchor or comments changed: %w", e.path, e.line, ErrVerify)
	}
	v.changed[n] = &e
	return nil
}

// checkAliases rejects edits inside anchored nodes that an alias (or a
// merge key) refers to: the aliases would silently change with them.
func (v *verifier) checkAliases(docs []*yqlib.CandidateNode) error {
	memo := map[*yqlib.CandidateNode]*edit{}
	var within func(n *yqlib.CandidateNode) *edit
	within = func(n *yqlib.CandidateNode) *edit {
		if n == nil || n.Kind == yqlib.AliasNode {
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
	var walk func(n *yqlib.CandidateNode) error
	walk = func(n *yqlib.CandidateNode) error {
		if n.Kind == yqlib.AliasNode {
			if e := within(n.Alias); e != nil {
				return fmt.Errorf("%s line %d: value is used through alias *%s at %s line %d, which would change too: %w",
					e.path, e.line, n.Value, pathOf(n), n.Line, ErrVerify)
			}
		}
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range docs {
		if err := walk(d); err != nil {
			return err
		}
	}
	return nil
}
