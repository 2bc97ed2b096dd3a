package gates

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/rendercheck"
)

// Ready renders a promotion for the syncReady gate: env's apps whose
// inputs files change, at base and with files written on base
// (rendercheck.Runner, through manifestdiff).
type Ready interface {
	Promotion(ctx context.Context, env string, base plumbing.Hash, files map[string][]byte) (*rendercheck.Result, error)
}

// ready is the syncReady gate: a promotion that gives the target env a
// sync-readiness error its current state does not have refuses (warn:
// says so and goes on). An app that cannot be rendered, or a run that
// cannot be made, refuses in both modes: what was not judged never passes.
func (c *Checker) ready(ctx context.Context, req Request, g config.Gate) Result {
	r := Result{Gate: config.GateSyncReady, Env: req.To}
	cannot := func(why string) Result {
		r.Summary = "cannot evaluate: " + oneLine(why)
		r.Problems = []Problem{{Kind: "cannot-evaluate", Message: r.Summary}}
		return r
	}
	if c.Ready == nil {
		return cannot(cmpOr(c.NoReady, "no renderer configured"))
	}
	base := req.PlanBase
	if base.IsZero() {
		base = req.Base
	}
	res, err := c.Ready.Promotion(ctx, req.To, base, req.Files)
	if err != nil {
		return cannot(err.Error())
	}
	for _, e := range res.Errors {
		if e.Env == req.To {
			r.Problems = append(r.Problems, Problem{App: e.Name, Kind: "cannot-render", Message: "cannot render: " + oneLine(e.Error)})
		}
	}
	if res.Failed != "" && len(r.Problems) == 0 {
		return cannot(res.Failed)
	}
	renderErr := len(r.Problems) > 0
	fresh := res.NewErrors(req.To)
	for _, f := range fresh {
		r.Problems = append(r.Problems, Problem{App: f.App, Kind: "will-not-sync", Message: oneLine(f.Line())})
	}
	warnings := 0
	for _, f := range res.Findings {
		if f.Env == req.To && f.Severity == "warning" && !f.Preexisting {
			warnings++
		}
	}
	switch {
	case renderErr:
		r.Summary = fmt.Sprintf("%s: %s", req.To, plural(len(r.Problems), "problem", "problems"))
	case len(fresh) > 0:
		r.Summary = fmt.Sprintf("%s would get %d new sync-readiness %s", req.To, len(fresh), plural(len(fresh), "error", "errors"))
		if g.SyncReady == config.SyncWindowWarn {
			// a warning is all that is said of them: name them
			var lines []string
			for _, p := range r.Problems {
				lines = append(lines, p.Message)
			}
			r.Summary += ": " + strings.Join(lines, "; ")
		}
		r.Passed, r.Warning = g.SyncReady == config.SyncWindowWarn, g.SyncReady == config.SyncWindowWarn
	default:
		r.Passed = true
		r.Summary = fmt.Sprintf("no new sync-readiness error in %s (%d %s rendered before and after)",
			req.To, res.Rendered, plural(res.Rendered, "app", "apps"))
	}
	if warnings > 0 {
		r.Summary += fmt.Sprintf("; %d new %s (manifestdiff --env %s lists them)", warnings, plural(warnings, "warning", "warnings"), req.To)
	}
	return r
}
