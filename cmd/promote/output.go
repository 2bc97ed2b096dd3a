package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/gates"
	"github.com/gitops-promote/gitops-promote/internal/promote"
	"github.com/gitops-promote/gitops-promote/internal/rendercheck"
)

// resultJSON is the documented --output json object of plan, apply and pin
// (docs/promote.md).
type resultJSON struct {
	Verb     string         `json:"verb"`
	From     string         `json:"from,omitempty"`
	To       string         `json:"to"`
	Base     string         `json:"base"`
	Source   string         `json:"source,omitempty"`
	UpToDate bool           `json:"upToDate"`
	Changes  []promote.Row  `json:"changes"`
	Edits    []editJSON     `json:"edits"`
	Notes    []promote.Note `json:"notes"`
	Diff     string         `json:"diff"`
	Commit   string         `json:"commit,omitempty"`
	Pushed   bool           `json:"pushed"`
	Remote   string         `json:"remote,omitempty"`
	Branch   string         `json:"branch,omitempty"`
	Attempts int            `json:"attempts,omitempty"`
	// Gates is what each gate of the target env found (absent without gates).
	Gates *gates.Report `json:"gates,omitempty"`
}

type editJSON struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Component string `json:"component"`
	Key       string `json:"key"`
	Old       string `json:"old"`
	New       string `json:"new"`
}

func toJSON(o *options, res *promote.Result) resultJSON {
	p := res.Plan
	out := resultJSON{Verb: o.verb, From: p.From, To: p.To, Base: res.Base, Source: res.Source, UpToDate: res.UpToDate,
		Changes: nonNil(p.Rows), Notes: nonNil(p.Notes), Diff: p.Diff(), Commit: res.Commit, Pushed: res.Pushed,
		Attempts: res.Attempts, Edits: []editJSON{}, Gates: p.Gates}
	if o.push || o.mergeRequest {
		out.Remote, out.Branch = res.Remote, res.Branch
	}
	for _, e := range p.Edits {
		out.Edits = append(out.Edits, editJSON{File: e.File, Line: e.Line, Component: e.Component, Key: e.Key, Old: e.Old, New: e.New})
	}
	return out
}

// writeResult writes the result through one buffer: the table writer
// emits every cell and its padding as a write of its own, a system call
// each on a pipe or a file.
func writeResult(ios *ioStreams, o *options, res *promote.Result) error {
	w := bufio.NewWriter(ios.Out)
	if err := writeResultTo(w, o, res); err != nil {
		return err
	}
	return w.Flush()
}

func writeResultTo(w io.Writer, o *options, res *promote.Result) error {
	p := res.Plan
	if o.output == "json" {
		return writeJSON(w, toJSON(o, res))
	}
	switch {
	case p.From != "" && res.Source != "" && res.Source != res.Base:
		fmt.Fprintf(w, "promote %s -> %s (base %s, %s read at %s)\n", p.From, p.To, short(res.Base), p.From, short(res.Source))
	case p.From != "":
		fmt.Fprintf(w, "promote %s -> %s (base %s)\n", p.From, p.To, short(res.Base))
	case p.Reject != nil:
		fmt.Fprintf(w, "%s %s (base %s)\n", p.Verb, p.Reject.Key(), short(res.Base))
	case p.Rollback != nil:
		fmt.Fprintf(w, "rollback %s to %s (base %s)\n", p.To, short(p.Rollback.To), short(res.Base))
	default:
		fmt.Fprintf(w, "pin %s (base %s)\n", p.To, short(res.Base))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "note: %s\n", noteText(n))
	}
	if res.UpToDate {
		fmt.Fprintln(w, "already up to date: nothing to commit")
		if res.Pushed {
			fmt.Fprintf(w, "pushed %s to %s/%s, which an earlier run committed but did not push (attempts: %d)\n",
				short(res.Commit), res.Remote, res.Branch, res.Attempts)
		}
		return nil
	}
	writeTable(w, p.Rows)
	switch {
	case o.previewOnly():
		fmt.Fprintln(w)
		writeDiff(w, p.Diff(), o.color)
	case res.Commit != "" && !o.mergeRequest:
		fmt.Fprintf(w, "committed %s: %s\n", short(res.Commit), cli.Plural(len(p.New), "file", "files"))
		if res.Pushed {
			fmt.Fprintf(w, "pushed to %s/%s (attempts: %d)\n", res.Remote, res.Branch, res.Attempts)
		} else {
			fmt.Fprintf(w, "not pushed: the commit is on your local HEAD only; re-run with --push to push it to %s/%s\n", o.remote, o.branch)
		}
	}
	return nil
}

func writeTable(w io.Writer, rows []promote.Row) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COMPONENT\tKEY\tFROM -> TO\tFILES")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s -> %s\t%s\n", r.Component, r.Key, r.From, r.To, strings.Join(r.Files, ", "))
	}
	tw.Flush()
}

// writeDiff colours only on a terminal.
func writeDiff(w io.Writer, diff string, color bool) {
	if !color {
		io.WriteString(w, diff)
		return
	}
	for _, line := range strings.SplitAfter(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "diff "):
			fmt.Fprintf(w, "\x1b[1m%s\x1b[0m", strings.TrimSuffix(line, "\n"))
		case strings.HasPrefix(line, "+"):
			fmt.Fprintf(w, "\x1b[32m%s\x1b[0m", strings.TrimSuffix(line, "\n"))
		case strings.HasPrefix(line, "-"):
			fmt.Fprintf(w, "\x1b[31m%s\x1b[0m", strings.TrimSuffix(line, "\n"))
		case strings.HasPrefix(line, "@@"):
			fmt.Fprintf(w, "\x1b[36m%s\x1b[0m", strings.TrimSuffix(line, "\n"))
		default:
			io.WriteString(w, strings.TrimSuffix(line, "\n"))
		}
		if strings.HasSuffix(line, "\n") {
			io.WriteString(w, "\n")
		}
	}
}

// writeFindings writes check's findings, and with --rendered
// manifestdiff's: its findings as it lists them (info ones in JSON only,
// as manifestdiff does) and the apps it could not render.
func writeFindings(ios *ioStreams, o *options, envs []string, fs []promote.Finding, r *rendercheck.Result) error {
	failed := r != nil && r.Failed != ""
	if o.output == "json" {
		var ready *renderedJSON
		if r != nil {
			ready = &renderedJSON{Findings: r.Raw, Errors: nonNil(r.Errors)}
		}
		return writeJSON(ios.Out, struct {
			Envs     []string          `json:"envs"`
			OK       bool              `json:"ok"`
			Findings []promote.Finding `json:"findings"`
			Rendered *renderedJSON     `json:"syncReadiness,omitempty"`
		}{envs, len(fs) == 0 && !failed, nonNil(fs), ready})
	}
	for _, f := range fs {
		fmt.Fprintln(ios.Out, findingLine(f))
	}
	shown := len(fs)
	if r != nil {
		for _, f := range r.Shown() {
			fmt.Fprintln(ios.Out, f.Line())
			shown++
		}
		for _, e := range r.Errors {
			fmt.Fprintf(ios.Out, "%s/%s: cannot render: %s\n", e.Env, e.Name, e.Error)
			shown++
		}
	}
	if shown == 0 && !failed {
		fmt.Fprintf(ios.Out, "ok: %s: no findings\n", strings.Join(envs, ", "))
	}
	return nil
}

// renderedJSON is check --rendered's part of -o json: manifestdiff's
// findings array as it wrote it, and the apps it could not render.
type renderedJSON struct {
	Findings json.RawMessage        `json:"findings"`
	Errors   []rendercheck.AppError `json:"renderErrors"`
}

// findingLine is one finding: "file:line: env [rule] app: message", the
// location left out when the finding has none (not "(env): env").
func findingLine(f promote.Finding) string {
	var b strings.Builder
	switch {
	case f.File != "" && f.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", f.File, f.Line)
	case f.File != "":
		b.WriteString(f.File + ": ")
	}
	fmt.Fprintf(&b, "%s [%s] ", f.Env, f.Rule)
	if f.App != "" {
		b.WriteString(f.App + ": ")
	}
	b.WriteString(f.Message)
	return b.String()
}

func noteText(n promote.Note) string {
	switch {
	case n.File != "" && n.Line > 0:
		return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Message)
	case n.File != "":
		return n.File + ": " + n.Message
	}
	return n.Message
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// writeJSON writes v as -o json does: indented JSON.
func writeJSON[V any](w io.Writer, v V) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeOverview writes v, an overview for a person or a page, in -o's
// format; with no -o, a table for a person at a terminal and markdown for
// a file or pipe.
func writeOverview[V any](ios *ioStreams, format string, v V, asJSON, table, markdown func(io.Writer, V) error) error {
	switch format {
	case "json":
		return asJSON(ios.Out, v)
	case "markdown":
		return markdown(ios.Out, v)
	case "table":
		return table(ios.Out, v)
	}
	if ios.OutTTY {
		return table(ios.Out, v)
	}
	return markdown(ios.Out, v)
}
