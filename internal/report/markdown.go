package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// Marker is the hidden first line of the note, so a later run can find and
// update its own note instead of adding another.
const Marker = "<!-- manifestdiff -->"

// MaxDiffLines caps one resource's diff in the note. GitLab refuses notes
// over 1,000,000 characters; the JSON output keeps every line.
const MaxDiffLines = 500

// nameLimit is how many app names a grouped change lists.
const nameLimit = 10

// MarkdownOptions tune the note.
type MarkdownOptions struct {
	// ReportURL is where the HTML report of the same run is published (a
	// job artifact); when set, the note links to it and every app and
	// shared change links to its anchor there.
	ReportURL string
}

// MarkdownWith writes the merge request note in the parts noteParts
// lists: failures first, then what moved, the changes beyond the moves,
// and the changes that only follow from them, folded.
func MarkdownWith(w io.Writer, r Report, opt MarkdownOptions) error {
	n := &note{r: r, opt: opt, story: r.Story()}
	n.shared, n.index = sharedChanges(r)
	n.b.WriteString(Marker + "\n")
	for _, part := range noteParts {
		part(n)
	}
	if _, err := w.Write(n.b.Bytes()); err != nil {
		return fmt.Errorf("write markdown report: %w", err)
	}
	return nil
}

// writeFailures puts render failures at the very top: a reviewer must not
// read a partial diff as a complete one.
func writeFailures(b *bytes.Buffer, r Report) {
	for _, w := range liveWarnings(r) {
		fmt.Fprintf(b, "> :warning: **%s**\n\n", escape(w))
	}
	failed := r.failed()
	if len(failed) == 0 {
		return
	}
	names := make([]string, len(failed))
	for i, a := range failed {
		names[i] = code(a.Env + "/" + a.Name)
	}
	fmt.Fprintf(b, "> :warning: **%d %s failed to render, so this diff is incomplete:** %s\n\n",
		len(failed), plural(len(failed), "app", "apps"), strings.Join(names, ", "))
}

// writeHeadline says "No changes" only when it is true of every app.
func writeHeadline(b *bytes.Buffer, r Report, s Summary) {
	b.WriteString(Headline(s) + "\n\n")
	var skipped []string
	for _, g := range r.ordered() {
		for _, a := range g.Apps {
			if a.NotRendered != "" {
				skipped = append(skipped, fmt.Sprintf("%s (%s)", code(a.Env+"/"+a.Name), escape(a.NotRendered)))
			}
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(b, "Not rendered: %s.\n\n", strings.Join(skipped, ", "))
	}
}

func writeTable(b *bytes.Buffer, s Summary) {
	b.WriteString("| Environment | Changed | Added | Removed | Unchanged | Failed |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|\n")
	for _, e := range s.ByEnv {
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d |\n", escape(e.Env), e.Changed, e.Added, e.Removed, e.Unchanged, e.Error)
	}
	b.WriteString("\n")
}

// reportLink is " · report" linking to anchor in the HTML report, or ""
// without one.
func reportLink(opt MarkdownOptions, anchor string) string {
	if opt.ReportURL == "" {
		return ""
	}
	return fmt.Sprintf(` · <a href="%s">report</a>`, html.EscapeString(opt.ReportURL+"#"+anchor))
}

func writeShared(b *bytes.Buffer, r Report, gr *group, link string) {
	first := gr.Members[0]
	fmt.Fprintf(b, "<details><summary>%s <code>%s</code> %s — same change in %d apps: %s%s</summary>\n\n",
		htmlText(first.Res.Kind), htmlCode(first.Res.Name), htmlText(string(first.Res.Status)),
		len(gr.apps), htmlText(gr.names(r, nameLimit)), link)
	fmt.Fprintf(b, "Shown for %s; the other apps differ only in their own name and namespace.\n\n", code(r.appLabel(first.App)))
	writeResourceNotes(b, first.Res)
	writeFence(b, "diff", capLines(first.Res.Diff))
	b.WriteString("</details>\n\n")
}

// writeResourceNotes explains what the diff cannot: per-key Secret status
// and fields left out because they change on every render.
func writeResourceNotes(b *bytes.Buffer, rd diff.ResourceDiff) {
	var keys []string
	for _, k := range rd.SecretKeys {
		if k.Status != "unchanged" {
			keys = append(keys, fmt.Sprintf("%s %s", code(k.Key), escape(k.Status)))
		}
	}
	if len(keys) > 0 {
		fmt.Fprintf(b, "Secret keys (values redacted): %s.\n\n", strings.Join(keys, ", "))
	}
	if len(rd.Generated) > 0 {
		g := make([]string, len(rd.Generated))
		for i, p := range rd.Generated {
			g[i] = code(p)
		}
		fmt.Fprintf(b, "Generated on every render, not compared: %s.\n\n", strings.Join(g, ", "))
	}
}

func resourceName(rd diff.ResourceDiff) string {
	if rd.Namespace == "" {
		return rd.Name
	}
	return rd.Namespace + "/" + rd.Name
}

// resourceTally summarises an app's resource changes, leaving out zeros.
func resourceTally(res []diff.ResourceDiff) string {
	var c ResourceCounts
	for _, rd := range res {
		switch rd.Status {
		case diff.Added:
			c.Added++
		case diff.Removed:
			c.Removed++
		case diff.Changed:
			c.Changed++
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{c.Changed, "changed"}, {c.Added, "added"}, {c.Removed, "removed"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ") + " " + plural(len(res), "resource", "resources")
}

// Headline is the one sentence that sums up a report: what differs, or
// that nothing does, or why that cannot be said. Every presenter uses it.
func Headline(s Summary) string {
	switch {
	case s.anyChange():
		n := s.ByStatus.Added + s.ByStatus.Removed + s.ByStatus.Changed
		return fmt.Sprintf("%d of %d %s %s; resources: %d added, %d removed, %d changed.",
			n, s.Apps, plural(s.Apps, "app", "apps"), plural(n, "differs", "differ"),
			s.Resources.Added, s.Resources.Removed, s.Resources.Changed)
	case s.Errors == 0 && s.NotRendered == 0:
		return "No changes."
	}
	return fmt.Sprintf("The apps that rendered are identical, but %d failed and %d %s not rendered.",
		s.Errors, s.NotRendered, plural(s.NotRendered, "was", "were"))
}

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string { return plural(n, one, many) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
