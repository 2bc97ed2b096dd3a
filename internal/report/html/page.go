package html

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// openLimit: a report with at most this many app sections opens them all;
// a bigger one starts collapsed, as the note does.
const openLimit = 10

// The page's size in the browser is bounded by drawing big diffs only
// when their app is opened: a diff longer than lazyLines, and every diff
// once rowBudget rows are in the page, is embedded as JSON data that the
// script turns into rows on opening. Measured (docs/benchmarks.md): the
// browser lays out about 40,000 rows a second on this machine.
const (
	lazyLines = 400
	rowBudget = 15000
)

// knownStatuses are the summary's columns, in the note's order; any other
// status an app carries gets a column after them, so a new kind of
// result shows up without a change here.
var knownStatuses = []string{report.StatusChanged, report.StatusAdded, report.StatusRemoved, report.StatusUnchanged, report.StatusError}

// page is everything the template shows.
type page struct {
	Base, Head  string
	Headline    string
	Failed      []appRef
	NotRendered []appRef
	Statuses    []string
	Envs        []envView
	Total       envView // counts over all environments
	Resources   report.ResourceCounts
	Shared      []sharedView
	Apps        int      // every app of the report
	Warnings    []string // envs the live diff could not compare
	Live        *liveView
	WillNotSync *willNotSync // sync-readiness errors and warnings, at the top
	// Moves and Mech tell the story as the note does (report.Story):
	// what moved, first; the apps whose every change follows the moves,
	// folded, last.
	Moves []moveView
	Mech  *mechView
}

type moveView struct{ Env, Line string }

// mechView is the folded part: the shared changes and the apps whose
// every change follows the version moves.
type mechView struct {
	Summary string
	Shared  []sharedView
	Envs    []envView
}

type appRef struct {
	Label, Anchor, Note string
}

type envView struct {
	Name, Anchor string
	Counts       []count
	Apps         []appView
	Unchanged    []appRef // apps without a section, listed by name
}

type count struct {
	Status string
	N      int
}

type appView struct {
	Anchor, Label, Status string
	Error, NotRendered    string
	Warnings              []string
	Tally                 string
	Open                  bool
	Resources             []resView
}

type resView struct {
	Anchor, Kind, Name, Status string
	SecretKeys                 []diff.SecretKeyChange // the keys that changed
	Generated                  []string
	Lines                      []line // rows in the page
	// Lazy holds the rows of a big diff as {kind, old, new, text} for the
	// script to draw when the app is opened; html/template writes them as
	// JSON escaped for a script element.
	Lazy [][4]string
	// Note words a live action ("would be pruned").
	Note string
	// Shared is set when another app has the same change: the diff is
	// shown once, under that anchor.
	Shared      string
	SharedCount int
	SharedMech  bool // the shared change is shown in the folded part
	// Mech is set on a change that follows the version moves, in its
	// app's main entry: the anchor where the folded part shows it.
	Mech string
}

type sharedView struct {
	Anchor string
	Open   bool
	Shown  appRef
	Others []appRef
	Res    resView
}

// builder keeps count of the rows already in the page, and what every
// app's entry looks up.
type builder struct {
	rows    int
	st      report.Story
	shared  []report.Shared
	groupOf func(report.App, diff.ResourceDiff) int
}

func build(r report.Report) page {
	bd := builder{st: r.Story()}
	s := r.Summary()
	p := page{Base: r.Base, Head: r.Head, Headline: headline(s), Resources: s.Resources, Apps: s.Apps}
	p.Statuses = statuses(r)
	p.WillNotSync = buildWillNotSync(r)
	st := bd.st
	for _, em := range st.Moves {
		p.Moves = append(p.Moves, moveView{Env: em.Env, Line: report.MoveLine(em)})
	}
	if c := st.Mechanical; c.Any() {
		p.Mech = &mechView{Summary: fmt.Sprintf("%d %s in %d %s (%s)", c.Resources, plural(c.Resources, "resource", "resources"),
			c.Touched, plural(c.Touched, "app", "apps"), report.LineTally(c))}
	}
	shared, groupOf := r.SharedChanges()
	bd.shared, bd.groupOf = shared, groupOf
	for i, sh := range shared {
		sv := sharedView{Anchor: report.SharedAnchor(i), Shown: ref(sh.App), Res: bd.resource(sh.App, sh.Res)}
		sv.Res.Anchor = sv.Anchor + "/diff" // the app's own entry has the resource's anchor
		for _, a := range sh.Apps[1:] {
			sv.Others = append(sv.Others, ref(a))
		}
		if sh.Mechanical && p.Mech != nil {
			p.Mech.Shared = append(p.Mech.Shared, sv)
			continue
		}
		p.Shared = append(p.Shared, sv)
	}
	sections := 0
	totals := map[string]int{}
	for _, e := range r.Envs() {
		ev := envView{Name: e.Name, Anchor: report.EnvAnchor(e.Name)}
		mech := envView{Name: e.Name, Anchor: report.MechanicalAnchor + "/" + report.EnvAnchor(e.Name)}
		n := map[string]int{}
		for _, a := range e.Apps {
			n[a.Status]++
			totals[a.Status]++
			switch {
			case a.Status == report.StatusError:
				p.Failed = append(p.Failed, ref(a))
			case a.NotRendered != "":
				rf := ref(a)
				rf.Note = a.NotRendered
				p.NotRendered = append(p.NotRendered, rf)
			}
			if !report.Shown(a) {
				ev.Unchanged = append(ev.Unchanged, ref(a))
				continue
			}
			sections++
			if st.Touched(a) {
				mech.Apps = append(mech.Apps, bd.app(a, true))
			}
			if !st.MechanicalApp(a) {
				ev.Apps = append(ev.Apps, bd.app(a, false))
			}
		}
		ev.Counts = counts(p.Statuses, n)
		p.Envs = append(p.Envs, ev)
		if len(mech.Apps) > 0 {
			p.Mech.Envs = append(p.Mech.Envs, mech)
		}
	}
	p.Total = envView{Name: "all", Counts: counts(p.Statuses, totals)}
	p.Warnings = report.LiveWarnings(r)
	if p.Live = bd.live(r, s); p.Live != nil {
		for _, e := range p.Live.Envs {
			sections += len(e.Apps)
		}
	}
	if sections <= openLimit {
		if p.Live != nil {
			for i := range p.Live.Envs {
				for j := range p.Live.Envs[i].Apps {
					p.Live.Envs[i].Apps[j].Open = true
				}
			}
		}
		for i := range p.Shared {
			p.Shared[i].Open = true
		}
		for i := range p.Envs {
			for j := range p.Envs[i].Apps {
				p.Envs[i].Apps[j].Open = true
			}
		}
		if p.Mech != nil {
			openMech(p.Mech)
		}
	}
	return p
}

// openMech opens everything in the folded part, for a small report; the
// part itself stays folded.
func openMech(m *mechView) {
	for i := range m.Shared {
		m.Shared[i].Open = true
	}
	for i := range m.Envs {
		for j := range m.Envs[i].Apps {
			m.Envs[i].Apps[j].Open = true
		}
	}
}

func statuses(r report.Report) []string {
	out := slices.Clone(knownStatuses)
	var extra []string
	for _, a := range r.Apps {
		if !slices.Contains(out, a.Status) && !slices.Contains(extra, a.Status) {
			extra = append(extra, a.Status)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

func counts(statuses []string, n map[string]int) []count {
	out := make([]count, len(statuses))
	for i, s := range statuses {
		out[i] = count{Status: s, N: n[s]}
	}
	return out
}

func ref(a report.App) appRef {
	return appRef{Label: a.Env + "/" + a.Name, Anchor: report.AppAnchor(a)}
}

// app is an app's entry: in the main part (mech false) every change of
// its own and, for each change that follows the version moves, a pointer
// to where the folded part shows it; in the folded part (mech true) those
// changes. Each diff is in the page once, under its resource's anchor.
func (bd *builder) app(a report.App, mech bool) appView {
	var res []diff.ResourceDiff
	for _, rd := range report.Changes(a) {
		if !mech || bd.st.MechanicalResource(a, rd) {
			res = append(res, rd)
		}
	}
	v := appView{Anchor: report.AppAnchor(a), Label: a.Env + "/" + a.Name, Status: a.Status,
		Error: a.Error, NotRendered: a.NotRendered, Warnings: a.Warnings, Tally: tally(res)}
	if mech && !bd.st.MechanicalApp(a) {
		v.Anchor = report.MechanicalAnchor + "/" + v.Anchor // the app's main entry has its anchor
		v.Error, v.NotRendered, v.Warnings = "", "", nil
	}
	for _, rd := range res {
		stub := resView{Anchor: report.ResourceAnchor(a, rd), Kind: rd.Kind, Name: resourceName(rd), Status: string(rd.Status)}
		switch g := bd.groupOf(a, rd); {
		case !mech && bd.st.MechanicalResource(a, rd):
			stub.Anchor, stub.Mech = "", report.ResourceAnchor(a, rd)
		case g >= 0:
			stub.Shared, stub.SharedCount, stub.SharedMech = report.SharedAnchor(g), len(bd.shared[g].Apps), bd.shared[g].Mechanical
		default:
			v.Resources = append(v.Resources, bd.resource(a, rd))
			continue
		}
		v.Resources = append(v.Resources, stub)
	}
	return v
}

func (bd *builder) resource(a report.App, rd diff.ResourceDiff) resView {
	v := resView{Anchor: report.ResourceAnchor(a, rd), Kind: rd.Kind, Name: resourceName(rd), Status: string(rd.Status),
		Generated: rd.Generated, Lines: diffLines(rd.Diff)}
	if n := len(v.Lines); n > lazyLines || bd.rows+n > rowBudget {
		v.Lazy = make([][4]string, n)
		for i, l := range v.Lines {
			v.Lazy[i] = [4]string{l.Kind, l.Old, l.New, l.Text}
		}
		v.Lines = nil
	}
	bd.rows += len(v.Lines)
	for _, k := range rd.SecretKeys {
		if k.Status != "unchanged" {
			v.SecretKeys = append(v.SecretKeys, k)
		}
	}
	return v
}

func resourceName(rd diff.ResourceDiff) string {
	if rd.Namespace == "" {
		return rd.Name
	}
	return rd.Namespace + "/" + rd.Name
}

// headline says what the note's headline says, in plain text.
func headline(s report.Summary) string { return report.Headline(s) }

// tally summarises an app's resource changes, leaving out zeros.
func tally(res []diff.ResourceDiff) string {
	order := []diff.Status{diff.Changed, diff.Added, diff.Removed}
	n := map[diff.Status]int{}
	for _, rd := range res {
		if n[rd.Status]++; !slices.Contains(order, rd.Status) {
			order = append(order, rd.Status)
		}
	}
	var parts []string
	for _, st := range order {
		if n[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	word := "resources"
	if len(res) == 1 {
		word = "resource"
	}
	return strings.Join(parts, ", ") + " " + word
}

func plural(n int, one, many string) string { return report.Plural(n, one, many) }
