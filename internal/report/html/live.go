package html

import (
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// liveView is the live diff's part of the page (manifestdiff --live):
// per compared env, the apps a sync would change, with drift and what
// could not be compared, worded as in the note.
type liveView struct {
	Counts report.LiveCounts
	Envs   []liveEnvView
}

type liveEnvView struct {
	Name, Cluster, Anchor, Error string
	Findings                     []string // kinds not listed: prune detection incomplete
	Apps                         []liveAppView
}

type liveAppView struct {
	Anchor, Label, Tally, Error string
	Open                        bool
	Findings                    []string
	Resources                   []resView
}

func (bd *builder) live(r report.Report, s report.Summary) *liveView {
	if s.Live == nil {
		return nil
	}
	v := &liveView{Counts: *s.Live}
	for _, e := range r.LiveEnvs {
		ev := liveEnvView{Name: e.Env, Cluster: e.Cluster, Anchor: "live-" + report.EnvAnchor(e.Env), Error: e.Error}
		for _, f := range e.Findings {
			ev.Findings = append(ev.Findings, report.FindingLine(f))
		}
		for _, g := range r.Envs() {
			if g.Name != e.Env {
				continue
			}
			for _, a := range g.Apps {
				if report.LiveShown(a) {
					ev.Apps = append(ev.Apps, bd.liveApp(a, r.Base))
				}
			}
		}
		v.Envs = append(v.Envs, ev)
	}
	return v
}

func (bd *builder) liveApp(a report.App, base string) liveAppView {
	l := a.Live
	v := liveAppView{Anchor: report.LiveAnchor(a), Label: a.Env + "/" + a.Name, Tally: report.LiveTally(l), Error: l.Error}
	for _, f := range l.Findings {
		v.Findings = append(v.Findings, report.FindingLine(f))
	}
	for _, group := range [][]report.LiveResource{l.Changes, l.Drift} {
		for _, c := range group {
			rv := bd.resource(a, c.ResourceDiff)
			// an object can be both a change and a drift: only the app has an anchor
			rv.Anchor, rv.Status, rv.Note = "", c.Action, report.LiveTitle(c.Action, base)
			v.Resources = append(v.Resources, rv)
		}
	}
	return v
}
