package manifestdiff

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// The run is three parallel phases over the same pool size: discovery
// (each env at each revision), planning (inputs keys, per pair) and
// rendering (per pair: its renders, then its diff). A pair is the unit of
// work from planning on, so each core takes the next pair as soon as it
// is free, diffs it while the other core renders, and drops the rendered
// manifests once diffed: memory holds the report, not every render.

func (d *Diff) workers() int {
	if d.Parallel > 0 {
		return d.Parallel
	}
	return runtime.GOMAXPROCS(0)
}

// each calls f(i) for i in [0, n) on the pool, each index once, the next
// free worker taking the next index.
func (d *Diff) each(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(d.workers(), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// discoverAll discovers and plans env by env, each env's revisions at
// once (see join). It returns every app's entry in report order.
func (d *Diff) discoverAll(ctx context.Context, envs []string) ([]entry, error) {
	var out []entry
	for _, env := range envs {
		es, ok, err := d.streamEnv(ctx, env)
		if err == nil && !ok {
			es, err = d.discoverWhole(ctx, env)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
	}
	return out, nil
}

// entry is one app of the report, in order: a pair with work left (its
// renders, the live comparison, an error to clean), or, once planning
// left nothing to do, only its finished report entry. An unchanged app
// then costs the run its entry, not a pair (about a third of the size).
type entry struct {
	p    *pair
	done report.App
}

func (e entry) name() string {
	if e.p != nil {
		return e.p.name
	}
	return e.done.Name
}

// settled is p's entry once planned, its apps dropped when it has
// nothing left to do.
func settled(p *pair) entry {
	if len(p.todo) == 0 && p.result.Status != report.StatusError {
		return entry{done: p.result}
	}
	return entry{p: p}
}

// pending is the pairs of entries that still have work.
func pending(es []entry) []*pair {
	var ps []*pair
	for _, e := range es {
		if e.p != nil {
			ps = append(ps, e.p)
		}
	}
	return ps
}

// discoverWhole discovers env at both revisions, pairs every app, marks
// those of failed documents (see failed) and plans the rest on the pool.
func (d *Diff) discoverWhole(ctx context.Context, env string) ([]entry, error) {
	sides, err := d.discoverBoth(ctx, env, nil)
	if err != nil {
		return nil, err
	}
	ps := d.pairUp(env, sides[0], sides[1])
	if d.Shard.Total > 1 {
		ps = slices.DeleteFunc(ps, func(p *pair) bool { return !InShard(p.env, p.name, d.Shard) })
	}
	d.each(len(ps), func(i int) { d.planSafe(ps[i], [2]*sideKey{}) })
	out := make([]entry, len(ps))
	for i, p := range ps {
		if out[i] = settled(p); out[i].p != nil {
			// no longer pointing into discovery's slices, so that they,
			// and with them every unchanged app, can be collected
			p.base, p.head = detach(p.base), detach(p.head)
		}
	}
	return out, nil
}

func detach(a *argo.App) *argo.App {
	if a == nil {
		return nil
	}
	c := *a
	return &c
}

// render renders and diffs every pair that has something to render,
// the costliest first so that no core is left with a long one at the end.
// Once ctx is done no pair starts, and render returns within settleGrace
// (see interruptible) with the pairs that did not finish before: their
// entries are interruptedApp's, whatever their goroutines still do.
func (d *Diff) render(ctx context.Context, pairs []*pair) (unfinished, timedOut map[*pair]report.App) {
	var work []*pair
	for _, p := range pairs {
		if len(p.todo) > 0 {
			work = append(work, p)
		}
	}
	slices.SortStableFunc(work, func(a, b *pair) int { return cost(b) - cost(a) })
	// taken before any render: an abandoned one may still write p.result
	stubs := make([]report.App, len(work))
	for i, p := range work {
		stubs[i] = report.App{Env: p.env, Name: p.name, Namespace: p.result.Namespace}
	}
	finished := make([]atomic.Bool, len(work))
	late := make([]atomic.Bool, len(work))
	var mu sync.Mutex
	done := 0
	interruptible(ctx, func() {
		d.each(len(work), func(i int) {
			if ctx.Err() != nil {
				return
			}
			p := work[i]
			appCtx, cancel := context.WithTimeoutCause(ctx, d.appTimeout(), ErrAppTimeout)
			ok := interruptible(appCtx, func() {
				d.renderPair(appCtx, p)
				d.finishSafe(p)
				d.release(p)
			})
			cancel()
			// a render the signal cut short failed for that reason only
			finished[i].Store(ok && ctx.Err() == nil)
			late[i].Store(!ok && ctx.Err() == nil)
			if d.Progress != nil {
				mu.Lock()
				done++
				d.Progress(done, len(work))
				mu.Unlock()
			}
		})
	})
	for i := range work {
		s := stubs[i]
		switch {
		case late[i].Load():
			if timedOut == nil {
				timedOut = map[*pair]report.App{}
			}
			timedOut[work[i]] = timedOutApp(s.Env, s.Name, s.Namespace, d.appTimeout())
		case !finished[i].Load():
			if unfinished == nil {
				unfinished = map[*pair]report.App{}
			}
			unfinished[work[i]] = interruptedApp(ctx, s.Env, s.Name, s.Namespace)
		}
	}
	return unfinished, timedOut
}

// cost estimates a pair's work: its renders times its sources.
func cost(p *pair) int {
	n := 1
	if p.head != nil {
		n = max(n, len(p.head.Sources))
	}
	if p.base != nil {
		n = max(n, len(p.base.Sources))
	}
	return len(p.todo) * n
}

// renderPair renders the sides the plan asked for, in order. The second
// render of head, which tells generated values from changes, is skipped
// when every source of head is proven to render the same bytes again
// (render.RenderUntracked): it would find nothing, and diff.Resources
// labels nothing generated without it either.
func (d *Diff) renderPair(ctx context.Context, p *pair) {
	once := false
	for _, side := range p.todo {
		if side == 2 && once && !d.RenderTwice {
			continue
		}
		o := d.renderSide(ctx, p, side)
		if side == 1 {
			once = o
		}
	}
}

// release drops a diffed pair's rendered manifests unless the live
// comparison still needs them, or its error may (the report's error is
// cleaned with what the app rendered).
func (d *Diff) release(p *pair) {
	if d.live[p.env] || p.result.Status == report.StatusError {
		return
	}
	p.manifests = [3][]byte{}
}
