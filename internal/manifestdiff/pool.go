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
// once (see join), and keeps of each env only the apps that changed:
// every unchanged app's entry is complete once planned.
func (d *Diff) discoverAll(ctx context.Context, envs []string) ([]*pair, error) {
	var pairs []*pair
	for _, env := range envs {
		ps, ok, err := d.streamEnv(ctx, env)
		if err == nil && !ok {
			ps, err = d.discoverWhole(ctx, env)
		}
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, ps...)
	}
	return pairs, nil
}

// discoverWhole discovers env at both revisions, pairs every app, marks
// those of failed documents (see failed) and plans the rest on the pool.
func (d *Diff) discoverWhole(ctx context.Context, env string) ([]*pair, error) {
	sides, err := d.discoverBoth(ctx, env, nil)
	if err != nil {
		return nil, err
	}
	ps := d.pairUp(env, sides[0], sides[1])
	if d.Shard.Total > 1 {
		ps = slices.DeleteFunc(ps, func(p *pair) bool { return !InShard(p.env, p.name, d.Shard) })
	}
	d.plan(ps)
	return ps, nil
}

// plan decides each pair's renders on the pool (inputs keys read files),
// then detaches the apps still needed from discovery's slices, so that
// those slices, and with them every unchanged app, can be collected.
func (d *Diff) plan(pairs []*pair) {
	d.each(len(pairs), func(i int) { d.planSafe(pairs[i], [2]*sideKey{}) })
	for _, p := range pairs {
		if len(p.todo) == 0 && p.result.Status != report.StatusError {
			p.base, p.head = nil, nil // unchanged: its entry is complete
			continue
		}
		p.base, p.head = detach(p.base), detach(p.head)
	}
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
func (d *Diff) render(ctx context.Context, pairs []*pair) {
	var work []*pair
	for _, p := range pairs {
		if len(p.todo) > 0 {
			work = append(work, p)
		}
	}
	slices.SortStableFunc(work, func(a, b *pair) int { return cost(b) - cost(a) })
	var mu sync.Mutex
	done := 0
	d.each(len(work), func(i int) {
		p := work[i]
		d.renderPair(ctx, p)
		d.finishSafe(p)
		d.release(p)
		if d.Progress != nil {
			mu.Lock()
			done++
			d.Progress(done, len(work))
			mu.Unlock()
		}
	})
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
// (render.RenderChecked): it would find nothing, and diff.Resources
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
