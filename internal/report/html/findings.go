package html

import "github.com/gitops-promote/gitops-promote/internal/report"

// willNotSync is the page's "Will not sync" section: the errors and
// warnings the head revision adds, then those base already had.
type willNotSync struct {
	Fresh, Old           []findingGroup
	FreshCount, OldCount string
}

type findingGroup struct {
	Label    string
	Findings []findingView
}

type findingView struct {
	Severity, Rule, Object, Message string
}

// buildWillNotSync is nil when there is nothing to show.
func buildWillNotSync(r report.Report) *willNotSync {
	fresh, old := r.WillNotSync()
	if len(fresh)+len(old) == 0 {
		return nil
	}
	return &willNotSync{Fresh: findingGroups(fresh), Old: findingGroups(old),
		FreshCount: report.FindingCounts(fresh), OldCount: report.FindingCounts(old)}
}

func findingGroups(gs []report.FindingGroup) []findingGroup {
	out := make([]findingGroup, len(gs))
	for i, g := range gs {
		out[i].Label = report.FindingApp(g.Env, g.App)
		for _, f := range g.Findings {
			out[i].Findings = append(out[i].Findings, findingView{Severity: f.Severity, Rule: f.Rule,
				Object: report.FindingObject(f), Message: f.Message})
		}
	}
	return out
}
