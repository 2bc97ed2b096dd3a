package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// ANSI SGR sequences.
const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
)

// painter colours text only when asked, so piped output stays plain.
// What it paints is one line without any control character of its own
// (terminalLine): only our escapes reach the terminal.
type painter bool

func (p painter) paint(style, s string) string {
	s = terminalLine(s)
	if !p {
		return s
	}
	return style + s + ansiReset
}

// Diff writes a unified diff of every changed resource, with a header per
// app and per resource, in the story's order (see Story): a line per env
// of what moved, the apps with changes beyond the moves, then under one
// header with counts the apps whose every change follows the moves. Colours are ANSI escapes, used only when color is
// true.
func Diff(w io.Writer, r Report, color bool) error {
	p := painter(color)
	var b bytes.Buffer
	writeWillNotSyncTerminal(&b, p, r)
	if failed := r.failed(); len(failed) > 0 {
		names := make([]string, len(failed))
		for i, a := range failed {
			names[i] = a.Env + "/" + a.Name
		}
		fmt.Fprintf(&b, "%s\n", p.paint(ansiBold+ansiRed, fmt.Sprintf("%d %s failed to render, so this diff is incomplete: %s",
			len(failed), plural(len(failed), "app", "apps"), strings.Join(names, ", "))))
	}
	for _, w := range liveWarnings(r) {
		fmt.Fprintf(&b, "%s\n", p.paint(ansiBold+ansiRed, w))
	}
	s := r.Summary()
	if !s.anyChange() && s.Errors == 0 && s.NotRendered == 0 {
		b.WriteString("No changes.\n")
	}
	st := r.Story()
	for _, em := range st.Moves {
		fmt.Fprintf(&b, "%s\n", p.paint(ansiBold, terminalLine("moved in "+em.Env+": "+MoveLine(em))))
	}
	for _, g := range r.ordered() {
		for _, a := range g.Apps {
			if visible(a) && !st.MechanicalApp(a) {
				writeTerminalApp(&b, p, a, func(rd diff.ResourceDiff) bool { return !st.MechanicalResource(a, rd) })
			}
		}
	}
	if c := st.Mechanical; c.Any() {
		fmt.Fprintf(&b, "%s\n", p.paint(ansiBold, fmt.Sprintf("=== changes that follow the version moves: %d %s in %d %s (%s)",
			c.Resources, plural(c.Resources, "resource", "resources"), c.Touched, plural(c.Touched, "app", "apps"), LineTally(c))))
		for _, g := range r.ordered() {
			for _, a := range g.Apps {
				if st.Touched(a) {
					writeTerminalApp(&b, p, a, func(rd diff.ResourceDiff) bool { return st.MechanicalResource(a, rd) })
				}
			}
		}
	}
	writeLiveTerminal(&b, p, r)
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write diff: %w", err)
	}
	return nil
}

// writeTerminalApp writes an app's header and the resources shown picks.
func writeTerminalApp(b *bytes.Buffer, p painter, a App, shown func(diff.ResourceDiff) bool) {
	fmt.Fprintf(b, "%s\n", p.paint(ansiBold, fmt.Sprintf("=== %s/%s (%s)", a.Env, a.Name, a.Status)))
	if a.Error != "" {
		fmt.Fprintf(b, "%s\n", p.paint(ansiRed, "error: "+a.Error))
	}
	if a.NotRendered != "" {
		fmt.Fprintf(b, "not rendered: %s\n", terminalLine(a.NotRendered))
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(b, "argo cd warns: %s\n", w)
	}
	for _, rd := range changedResources(a) {
		if !shown(rd) {
			continue
		}
		fmt.Fprintf(b, "%s\n", p.paint(ansiBold, fmt.Sprintf("### %s %s (%s)", rd.Kind, resourceName(rd), rd.Status)))
		writeTerminalNotes(b, rd)
		for _, l := range splitKeep(rd.Diff) {
			b.WriteString(colourLine(p, l) + "\n")
		}
	}
}

func writeTerminalNotes(b *bytes.Buffer, rd diff.ResourceDiff) {
	for _, k := range rd.SecretKeys {
		if k.Status != "unchanged" {
			fmt.Fprintf(b, "secret key %s: %s\n", terminalLine(k.Key), terminalLine(k.Status))
		}
	}
	for _, g := range rd.Generated {
		fmt.Fprintf(b, "generated (not compared): %s\n", terminalLine(g))
	}
}

// colourLine picks a colour by the unified diff line prefix; the file
// header lines must be tested before the single-character ones.
func colourLine(p painter, l string) string {
	l = terminalLine(l)
	switch {
	case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
		return p.paint(ansiBold, l)
	case strings.HasPrefix(l, "@@"):
		return p.paint(ansiCyan, l)
	case strings.HasPrefix(l, "+"):
		return p.paint(ansiGreen, l)
	case strings.HasPrefix(l, "-"):
		return p.paint(ansiRed, l)
	}
	return l
}

func splitKeep(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
