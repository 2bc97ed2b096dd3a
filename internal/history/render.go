package history

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// View is what promote history shows: one env's entries, newest first.
type View struct {
	Env     string  `json:"env"`
	Entries []Entry `json:"entries"`
}

// what is an entry's kind for people: "promote from qa@1a2b3c4d5e6f".
func (e Entry) what() string {
	switch e.Kind {
	case KindPromote:
		return fmt.Sprintf("promote from %s@%s", e.From, short(e.FromCommit))
	case KindPin:
		return "pin"
	case KindRollback:
		return "rollback to " + short(e.RolledBackTo)
	}
	return "edited by hand"
}

// notes are the overrides, reason and forced fields of an entry.
func (e Entry) notes() []string {
	var out []string
	if e.Reason != "" {
		out = append(out, "reason: "+e.Reason)
	}
	for _, f := range e.Forced {
		out = append(out, "forced: "+f)
	}
	for _, o := range e.Overrides {
		out = append(out, "override: "+o)
	}
	if e.Kind == KindEdit {
		out = append(out, "subject: "+e.Subject)
	}
	return out
}

func (c Change) text() string {
	from, to := c.From, c.To
	if from == "" {
		from = "(none)"
	}
	if to == "" {
		to = "(none)"
	}
	return fmt.Sprintf("%s.%s: %s -> %s", c.Component, c.Key, from, to)
}

// WriteTable writes the view for a terminal: one line per change, the
// commit's facts on its first line, notes indented below.
func WriteTable(w io.Writer, v *View) error {
	if len(v.Entries) == 0 {
		_, err := fmt.Fprintf(w, "%s: no promotions, pins, rollbacks or edits of its versions file in the history read\n", v.Env)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMIT\tDATE\tAUTHOR\tWHAT\tCHANGES")
	for _, e := range v.Entries {
		changes := e.Changes
		first := "(no field changed)"
		if len(changes) > 0 {
			first, changes = changes[0].text(), changes[1:]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", short(e.Commit), e.When.Format("2006-01-02 15:04"), e.Author, e.what(), first)
		for _, c := range changes {
			fmt.Fprintf(tw, "\t\t\t\t%s\n", c.text())
		}
		for _, n := range e.notes() {
			fmt.Fprintf(tw, "\t\t\t\t%s\n", n)
		}
	}
	return tw.Flush()
}

// WriteMarkdown writes the view as a markdown table, for a merge request
// or a wiki.
func WriteMarkdown(w io.Writer, v *View) error {
	fmt.Fprintf(w, "## History of %s\n\n", v.Env)
	if len(v.Entries) == 0 {
		_, err := fmt.Fprintln(w, "No promotions, pins, rollbacks or edits of its versions file in the history read.")
		return err
	}
	fmt.Fprintln(w, "| Commit | Date | Author | What | Changes | Notes |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, e := range v.Entries {
		var changes []string
		for _, c := range e.Changes {
			changes = append(changes, "`"+c.text()+"`")
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s |\n", short(e.Commit), e.When.Format("2006-01-02 15:04 MST"),
			md(e.Author), md(e.what()), strings.Join(changes, "<br>"), md(strings.Join(e.notes(), "; ")))
	}
	return nil
}

// WriteJSON writes the view as indented JSON (docs/promote.md).
func WriteJSON(w io.Writer, v *View) error {
	if v.Entries == nil {
		v.Entries = []Entry{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func md(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
