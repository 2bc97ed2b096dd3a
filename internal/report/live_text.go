package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// liveTitles says in words what each action means to a reviewer.
var liveTitles = map[string]string{
	LiveCreate:  "would be created",
	LiveUpdate:  "would change",
	LivePrune:   "would be pruned",
	LiveRemain:  "would remain (the app does not prune it)",
	LiveMissing: "drift: missing from the cluster",
	LiveExtra:   "drift: only in the cluster",
}

// liveTitle is an action's title; a modified object's names the base
// revision its drift is measured from, as the user gave it (a branch, a
// merge-base, a commit): drift from a release branch is not drift from
// main.
func liveTitle(action, base string) string {
	if action == LiveModified {
		if base == "" {
			base = "the base revision"
		}
		return "drift: the cluster no longer matches " + base
	}
	if t, ok := liveTitles[action]; ok {
		return t
	}
	return action
}

// liveWarnings puts envs that could not be compared at the very top, like
// render failures: the live part of the report is incomplete.
func liveWarnings(r Report) []string {
	var out []string
	for _, e := range r.LiveEnvs {
		if e.Error != "" {
			out = append(out, fmt.Sprintf("live diff of %s failed: %s", e.Env, e.Error))
		}
	}
	return out
}

// liveVisible: apps with something to show in the live section.
func liveVisible(a App) bool {
	l := a.Live
	return l != nil && (l.Error != "" || len(l.Changes)+len(l.Drift)+len(l.Findings) > 0)
}

func liveTally(l *Live) string {
	n := map[string]int{}
	for _, c := range l.Changes {
		n[c.Action]++
	}
	var parts []string
	for _, a := range []string{LiveCreate, LiveUpdate, LivePrune, LiveRemain} {
		if n[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[a], a))
		}
	}
	if len(l.Drift) > 0 {
		parts = append(parts, fmt.Sprintf("%d drift", len(l.Drift)))
	}
	if len(l.Findings) > 0 {
		parts = append(parts, fmt.Sprintf("%d not compared", len(l.Findings)))
	}
	if l.Error != "" {
		parts = append(parts, "not compared")
	}
	return strings.Join(parts, ", ")
}

func resourceDiffOf(f LiveFinding) diff.ResourceDiff {
	return diff.ResourceDiff{APIVersion: f.APIVersion, Kind: f.Kind, Namespace: f.Namespace, Name: f.Name}
}

func findingLine(f LiveFinding) string {
	what := f.Kind
	if f.Name != "" {
		what += " " + resourceName(resourceDiffOf(f))
	} else if f.APIVersion != "" && what == "" {
		what = f.APIVersion
	}
	if f.Namespace != "" && f.Name == "" {
		what += " in " + f.Namespace
	}
	return fmt.Sprintf("%s: %s (%s)", strings.TrimSpace(what), f.Reason, f.Message)
}

// writeLiveMarkdown is the note's live section, per env then app.
func writeLiveMarkdown(b *bytes.Buffer, r Report, opt MarkdownOptions) {
	if !r.anyLive() {
		return
	}
	s := r.Summary().Live
	fmt.Fprintf(b, "### Live diff\n\nA sync of %s would create %d, update %d and prune %d objects (%d would remain); %d drifted from %s; %d could not be compared.\n\n",
		code(r.Head), s.Create, s.Update, s.Prune, s.Remain, s.Drift, code(r.Base), s.Findings)
	for _, e := range r.LiveEnvs {
		fmt.Fprintf(b, "#### %s live (%s)\n\n", escape(e.Env), escape(e.Cluster))
		if e.Error != "" {
			writeFence(b, "text", "not compared: "+e.Error+"\n")
			continue
		}
		for _, f := range e.Findings {
			fmt.Fprintf(b, "- prune detection incomplete: %s\n", escape(findingLine(f)))
		}
		if len(e.Findings) > 0 {
			b.WriteString("\n")
		}
		for _, a := range r.Apps {
			if a.Env == e.Env && liveVisible(a) {
				writeLiveApp(b, a, r.Base, reportLink(opt, LiveAnchor(a)))
			}
		}
	}
}

func writeLiveApp(b *bytes.Buffer, a App, base, link string) {
	l := a.Live
	fmt.Fprintf(b, "<details><summary><b>%s</b> — %s%s</summary>\n\n", htmlText(a.Name), htmlText(liveTally(l)), link)
	if l.Error != "" {
		writeFence(b, "text", "not compared: "+l.Error+"\n")
	}
	for _, f := range l.Findings {
		fmt.Fprintf(b, "- not compared: %s\n", escape(findingLine(f)))
	}
	if len(l.Findings) > 0 {
		b.WriteString("\n")
	}
	for _, group := range [][]LiveResource{l.Changes, l.Drift} {
		for _, c := range group {
			fmt.Fprintf(b, "**%s** %s %s\n\n", escape(liveTitle(c.Action, base)), escape(c.Kind), code(resourceName(c.ResourceDiff)))
			writeResourceNotes(b, c.ResourceDiff)
			writeFence(b, "diff", capLines(c.Diff))
		}
	}
	b.WriteString("</details>\n\n")
}

// writeLiveTerminal is the live part of the terminal diff.
func writeLiveTerminal(b *bytes.Buffer, p painter, r Report) {
	for _, e := range r.LiveEnvs {
		fmt.Fprintf(b, "%s\n", p.paint(ansiBold, fmt.Sprintf("=== live %s (%s)", e.Env, e.Cluster)))
		if e.Error != "" {
			fmt.Fprintf(b, "%s\n", p.paint(ansiRed, "error: not compared: "+e.Error))
			continue
		}
		for _, f := range e.Findings {
			fmt.Fprintf(b, "prune detection incomplete: %s\n", terminalLine(findingLine(f)))
		}
		for _, a := range r.Apps {
			if a.Env != e.Env || !liveVisible(a) {
				continue
			}
			fmt.Fprintf(b, "%s\n", p.paint(ansiBold, fmt.Sprintf("=== live %s/%s (%s)", a.Env, a.Name, liveTally(a.Live))))
			if a.Live.Error != "" {
				fmt.Fprintf(b, "%s\n", p.paint(ansiRed, "error: not compared: "+a.Live.Error))
			}
			for _, f := range a.Live.Findings {
				fmt.Fprintf(b, "not compared: %s\n", terminalLine(findingLine(f)))
			}
			for _, group := range [][]LiveResource{a.Live.Changes, a.Live.Drift} {
				for _, c := range group {
					fmt.Fprintf(b, "%s\n", p.paint(ansiBold, fmt.Sprintf("### %s %s (%s)", c.Kind, resourceName(c.ResourceDiff), liveTitle(c.Action, r.Base))))
					writeTerminalNotes(b, c.ResourceDiff)
					for _, l := range splitKeep(c.Diff) {
						b.WriteString(colourLine(p, l) + "\n")
					}
				}
			}
		}
	}
}
