package report

import (
	"bytes"
	"fmt"
	"html"
	"strings"
)

// note is the merge request note being written, with what its parts
// share: the story's split and the changes several apps share.
type note struct {
	b      bytes.Buffer
	r      Report
	opt    MarkdownOptions
	story  Story
	shared []*group
	index  map[string]*group
}

// noteParts are the note's parts in the order a reviewer reads them; each
// writes nothing when it has nothing to say. A part that must be read
// before the diff (a finding that stops the sync) goes in front of title.
var noteParts = []func(*note){
	(*note).willNotSync,
	(*note).pending,
	(*note).failures,
	(*note).title,
	(*note).moves,
	(*note).byHand,
	(*note).table,
	(*note).mechanical,
	(*note).live,
}

func (n *note) willNotSync() { writeWillNotSync(&n.b, n.r) }
func (n *note) pending()     { writePending(&n.b, n.r) }
func (n *note) failures()    { writeFailures(&n.b, n.r) }
func (n *note) live()        { writeLiveMarkdown(&n.b, n.r, n.opt) }

// title is the heading and the headline.
func (n *note) title() {
	fmt.Fprintf(&n.b, "### Manifest diff %s → %s\n\n", code(n.r.Base), code(n.r.Head))
	writeHeadline(&n.b, n.r, n.r.Summary())
	if n.opt.ReportURL != "" {
		fmt.Fprintf(&n.b, "Every diff, in full and filterable, is in <a href=\"%s\">the HTML report</a>.\n\n", html.EscapeString(n.opt.ReportURL))
	}
}

// table counts the apps by env and status, after the changes: the story
// comes first. Its heading makes it a part of its own when the note is
// split into pages (gitlab.SplitMarkdown), never the tail of a truncated
// section.
func (n *note) table() {
	if s := n.r.Summary(); s.Apps > 0 {
		n.b.WriteString("#### Apps by environment\n\n")
		writeTable(&n.b, s)
	}
}

// moves says in one line per env which charts and images moved.
func (n *note) moves() {
	if len(n.story.Moves) == 0 {
		return
	}
	n.b.WriteString("#### What moved\n\n")
	for _, em := range n.story.Moves {
		fmt.Fprintf(&n.b, "- **%s**: %s\n", escape(em.Env), escape(MoveLine(em)))
	}
	n.b.WriteString("\n")
}

// byHand shows in full every change the moves do not explain: env by env
// each app's own changes first, then the changes several apps share, once,
// then the apps told only there.
func (n *note) byHand() {
	for _, g := range n.r.ordered() {
		n.env(g)
	}
	var shared []int
	for i, gr := range n.shared {
		if !n.story.mechanicalGroup(gr) {
			shared = append(shared, i)
		}
	}
	if len(shared) > 0 {
		n.b.WriteString("#### Same change in several apps\n\n")
		for _, i := range shared {
			writeShared(&n.b, n.r, n.shared[i], reportLink(n.opt, SharedAnchor(i)))
		}
	}
	var brief []App
	for _, g := range n.r.ordered() {
		for _, a := range g.Apps {
			if a.Status != StatusUnchanged && !n.ownChanges(a) && !n.story.Touched(a) {
				brief = append(brief, a)
			}
		}
	}
	for _, a := range brief {
		fmt.Fprintf(&n.b, "- **%s** — %s%s: shared with other apps (above)%s\n", escape(n.r.appLabel(a)), escape(a.Status),
			resourceTally(changedResources(a)), reportLink(n.opt, AppAnchor(a)))
	}
	if len(brief) > 0 {
		n.b.WriteString("\n")
	}
}

// env shows the apps of one env that have changes of their own.
func (n *note) env(g envGroup) {
	var full []App
	for _, a := range g.Apps {
		if a.Status != StatusUnchanged && n.ownChanges(a) {
			full = append(full, a)
		}
	}
	if len(full) == 0 {
		return
	}
	fmt.Fprintf(&n.b, "#### %s\n\n", escape(g.Env))
	for _, a := range full {
		n.app(a)
	}
}

// ownChanges reports whether the app has something only its own section
// can show: a change neither shared nor following the moves, an error, a
// warning, a source not rendered, or a status other than changed.
func (n *note) ownChanges(a App) bool {
	if a.Status != StatusChanged || a.NotRendered != "" || len(a.Warnings) > 0 {
		return true
	}
	for _, rd := range changedResources(a) {
		if !n.story.MechanicalResource(a, rd) && n.index[memberKey(a, rd)] == nil {
			return true
		}
	}
	return false
}

func (n *note) app(a App) {
	res := changedResources(a)
	fmt.Fprintf(&n.b, "<details><summary><b>%s</b> — %s%s%s</summary>\n\n",
		htmlText(a.Name), htmlText(a.Status), resourceTally(res), reportLink(n.opt, AppAnchor(a)))
	if a.Status == StatusError {
		writeFence(&n.b, "text", a.Error+"\n")
	}
	if a.NotRendered != "" {
		fmt.Fprintf(&n.b, "Not rendered: %s.\n\n", escape(a.NotRendered))
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(&n.b, "Argo CD warns: %s\n\n", escape(w))
	}
	for _, rd := range res {
		title := fmt.Sprintf("**%s** %s %s", escape(string(rd.Status)), escape(rd.Kind), code(resourceName(rd)))
		switch gr := n.index[memberKey(a, rd)]; {
		case n.story.MechanicalResource(a, rd):
			fmt.Fprintf(&n.b, "%s: follows the version moves (below).\n\n", title)
		case gr != nil:
			fmt.Fprintf(&n.b, "%s: same change in %d apps (see below).\n\n", title, len(gr.apps))
		default:
			n.b.WriteString(title + "\n\n")
			writeResourceNotes(&n.b, rd)
			writeFence(&n.b, "diff", capLines(rd.Diff))
		}
	}
	n.b.WriteString("</details>\n\n")
}

// mechanical folds the changes that only follow from the moves into one
// section: counts, and the apps by env, each linked to its diffs in the
// HTML report.
func (n *note) mechanical() {
	c := n.story.Mechanical
	if !c.Any() {
		return
	}
	fmt.Fprintf(&n.b, "<details><summary>Changes that follow the version moves: %d %s in %d %s (%s)</summary>\n\n",
		c.Resources, plural(c.Resources, "resource", "resources"), c.Touched, plural(c.Touched, "app", "apps"), LineTally(c))
	n.b.WriteString("Each changed line writes a moved version over the old one (a chart label, a version label, an image tag) or is a `checksum/` annotation.")
	if n.opt.ReportURL != "" {
		fmt.Fprintf(&n.b, " The diffs are in <a href=\"%s\">the HTML report</a>.", html.EscapeString(n.opt.ReportURL+"#"+MechanicalAnchor))
	}
	n.b.WriteString(" Apps marked * have other changes too, above.\n\n")
	for _, g := range n.r.ordered() {
		var names []string
		for _, a := range g.Apps {
			if !n.story.Touched(a) {
				continue
			}
			star := "*"
			if n.story.MechanicalApp(a) {
				star = ""
			}
			names = append(names, code(a.Name)+star+reportLink(n.opt, AppAnchor(a)))
		}
		if len(names) > 0 {
			fmt.Fprintf(&n.b, "- **%s** (%d %s): %s\n", escape(g.Env), len(names), plural(len(names), "app", "apps"), strings.Join(names, ", "))
		}
	}
	n.b.WriteString("\n</details>\n\n")
}

// LineTally counts the lines that follow the moves by kind, leaving out zeros.
func LineTally(c MechanicalCounts) string {
	var parts []string
	for _, k := range LineKinds {
		if c.Lines[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.Lines[k], k))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	total := 0
	for _, v := range c.Lines {
		total += v
	}
	return strings.Join(parts, ", ") + " " + plural(total, "line", "lines")
}
