package manifestdiff

import (
	"context"
	"fmt"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/render"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// A panic anywhere in one app's work on the pool (argo resolving a source
// or reading its inputs, diff parsing and comparing what was rendered,
// the live comparison, our own code; render.RenderUntracked recovers its
// engines' itself) becomes that app's error, naming env, app, what was
// being done, the panic and where it happened: one app never stops the
// run or hides the others. A panic while discovering an env's apps fails
// the run with that context, as discovery errors do.

// The steps of the work outside render.RenderUntracked, as variables so
// that a test can make them panic for one env or app.
var (
	discoverApps   = argo.DiscoverWith
	inputsKey      = argo.App.InputsKey
	resolveApp     = argo.App.ResolveSources
	parseManifests = render.ParseTracked
)

// appPanic is a panic recovered in p's work, as p's error. Call it from
// the deferred function that recovered (render.Recovered reads the stack).
func appPanic(p *pair, r any, doing string) error {
	return p.panicError(render.Recovered(r, doing))
}

// panicError is a panic recovered in p's work, as p's error.
func (p *pair) panicError(pe *render.PanicError) error {
	p.panicked = pe.Engine + " panicked (at " + pe.At + ")" // what withhold may still say
	return fmt.Errorf("env %s, app %s: %w", p.env, p.name, pe)
}

// fail makes p's entry an error and nothing else.
func (p *pair) fail(err error) {
	p.result.Env, p.result.Name = p.env, p.name
	p.result.Status, p.result.Error = report.StatusError, oneLine(err.Error())
	p.result.Resources, p.result.NotRendered = nil, ""
}

// planSafe is planPair, a panic in it p's error.
func (d *Diff) planSafe(p *pair, known [2]*sideKey) {
	defer func() {
		if r := recover(); r != nil {
			p.todo = nil
			p.fail(appPanic(p, r, "reading its inputs"))
		}
	}()
	p.todo = d.planPair(p, known)
}

// finishSafe is finish, a panic in it p's error.
func (d *Diff) finishSafe(p *pair) {
	defer func() {
		if r := recover(); r != nil {
			p.fail(appPanic(p, r, "diffing"))
		}
	}()
	d.finish(p)
}

// renderSide renders one side of p into its slots; a panic outside
// render.RenderUntracked is that side's error, reported like a failed render.
func (d *Diff) renderSide(ctx context.Context, p *pair, side int) (once bool) {
	defer func() {
		if r := recover(); r != nil {
			p.manifests[side], p.tracks[side], p.notes[side], once = nil, nil, "", false
			p.errs[side] = appPanic(p, r, "resolving its sources")
		}
	}()
	app, s := p.head, d.Head
	if side == 0 {
		app, s = p.base, d.Base
	}
	p.manifests[side], p.tracks[side], p.notes[side], once, p.errs[side] = d.renderApp(ctx, app, s)
	return once
}

// scrubSafe is scrubResult; should cleaning panic, the messages it was to
// clean are withheld, never shown uncleaned.
func (d *Diff) scrubSafe(ctx context.Context, p *pair) {
	defer func() {
		if r := recover(); r != nil {
			withhold(&p.result, p, render.Recovered(r, "cleaning").At)
		}
	}()
	d.scrubResult(ctx, p)
}

// withhold replaces every message of r that could hold an input value
// with what is known to be safe: env, app, and where cleaning panicked.
func withhold(r *report.App, p *pair, at string) {
	why := "withheld: cleaning it of the app's inputs panicked (at " + at + ")"
	switch {
	case r.Error != "" && p.panicked != "":
		r.Error = fmt.Sprintf("env %s, app %s: %s; its message is %s", p.env, p.name, p.panicked, why)
	case r.Error != "":
		r.Error = fmt.Sprintf("env %s, app %s: its error is %s", p.env, p.name, why)
	}
	if r.NotRendered != "" {
		r.NotRendered = "a source was not rendered; the note is " + why
	}
	if l := r.Live; l != nil {
		if l.Error != "" {
			l.Error = "the live comparison's error is " + why
		}
		for i := range l.Findings {
			if l.Findings[i].Message != "" {
				l.Findings[i].Message = why
			}
		}
	}
}
