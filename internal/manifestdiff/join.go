package manifestdiff

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/render"
)

// An env is discovered as a stream: each revision's apps reach the join
// as their documents are expanded (argo.DiscoverOptions.Emit), each with
// its inputs key made on its revision's goroutine, and a pair is planned
// as soon as both of its apps are there. An unchanged app is dropped
// then, so an env's apps are never all held at once: memory follows the
// apps waiting for their other revision (few, as both revisions list
// them in the same order) and the report's entries, not the repository.
//
// A document that failed discovery at either revision fails apps of
// either revision by their file or ApplicationSet (see failed), which the
// join may have dropped; such an env is discovered again whole and
// paired by pairUp, the exact rules in one place.

// sideKey is one app's inputs key, made as the app was discovered.
type sideKey struct {
	key string
	err error
	// panicked is a panic reading the inputs, recovered where it
	// happened so that its site is known.
	panicked *render.PanicError
}

// join pairs one env's apps as both revisions discover them.
type join struct {
	d   *Diff
	env string
	mu  sync.Mutex
	// waiting holds the pairs that have one app so far, with its key.
	waiting map[string]*waitingPair
	paired  []entry
	// The revision that runs ahead waits for the other (see add):
	// unmatched counts each revision's waiting apps, finished says
	// which revision has emitted all of its apps.
	step      *sync.Cond
	unmatched [2]int
	finished  [2]bool
	ahead     int // how far a revision may run ahead; 0: it never waits
}

// maxAhead is how many apps one revision may discover that the other has
// not yet: both list an env's apps in the same order, so the waiting set
// stays this small rather than growing to what one core did while the
// other was collecting garbage or expanding a larger document. A
// variable for the tests, which make every app wait.
var maxAhead = 128

type waitingPair struct {
	p    *pair
	keys [2]*sideKey
}

// streamEnv discovers env at both revisions through a join. ok is false
// when a document failed at either revision: the caller discovers the env
// again whole.
func (d *Diff) streamEnv(ctx context.Context, env string) (es []entry, ok bool, err error) {
	j := &join{d: d, env: env, waiting: map[string]*waitingPair{}}
	j.step = sync.NewCond(&j.mu)
	if d.workers() > 1 {
		j.ahead = maxAhead // both revisions are discovered at once
	}
	sides, err := d.discoverBoth(ctx, env, j)
	if err != nil {
		return nil, false, err
	}
	if len(sides[0].fails)+len(sides[1].fails) > 0 {
		return nil, false, nil
	}
	return j.done(), true, nil
}

// discoverBoth discovers env at base and head at once. With a join, each
// app goes to it and is not returned.
func (d *Diff) discoverBoth(ctx context.Context, env string, j *join) ([2]discovered, error) {
	var sides [2]discovered
	var errs [2]error
	d.each(2, func(i int) {
		s := d.side(i)
		defer func() {
			if r := recover(); r != nil {
				errs[i] = fmt.Errorf("env %s at %s: %w", env, s.Name, render.Recovered(r, "discovering its apps"))
			}
		}()
		var emit func(argo.App)
		if j != nil {
			defer j.finish(i)
			emit = func(a argo.App) { j.add(i, a) }
		}
		sides[i].apps, sides[i].fails, errs[i] = d.discoverSide(ctx, s, env, emit)
	})
	return sides, errors.Join(errs[:]...)
}

// add takes one app of one revision: its key is made here, outside the
// lock, and the pair is planned once both apps are in.
func (j *join) add(side int, a argo.App) {
	if j.d.Shard.Total > 1 && !InShard(j.env, a.Name, j.d.Shard) {
		return
	}
	var k *sideKey
	if a.Err == "" {
		k = j.d.sideKey(a, side)
	}
	app := &a
	j.mu.Lock()
	defer j.mu.Unlock()
	w := j.waiting[a.Name]
	if w == nil {
		w = &waitingPair{p: &pair{env: j.env, name: a.Name}}
		j.waiting[a.Name] = w
	}
	if side == 0 {
		w.p.base = app
	} else {
		w.p.head = app
	}
	w.keys[side] = k
	if w.p.base != nil && w.p.head != nil {
		delete(j.waiting, a.Name)
		j.d.planSafe(w.p, w.keys)
		j.paired = append(j.paired, settled(w.p))
		j.unmatched[1-side]--
	} else {
		j.unmatched[side]++
	}
	j.step.Broadcast()
	// Wait while this revision is ahead and the other can catch up. Both
	// never wait at once: each waits only while the other is not ahead.
	for j.ahead > 0 && j.unmatched[side] > j.ahead && !j.finished[1-side] && j.unmatched[1-side] <= j.ahead {
		j.step.Wait()
	}
}

// finish marks a revision as done emitting: the other never waits for it.
func (j *join) finish(side int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.finished[side] = true
	j.step.Broadcast()
}

// done plans the apps of one revision only (added, removed) and returns
// the env's entries sorted by name, as pairUp sorts pairs.
func (j *join) done() []entry {
	out := j.paired
	for _, w := range j.waiting {
		j.d.planSafe(w.p, w.keys)
		out = append(out, settled(w.p))
	}
	sort.Slice(out, func(i, k int) bool { return out[i].name() < out[k].name() })
	return out
}

// sideKey makes a's inputs key at one revision; a panic is kept as the
// key's, recovered here for its site.
func (d *Diff) sideKey(a argo.App, side int) (k *sideKey) {
	s := d.side(side)
	defer func() {
		if r := recover(); r != nil {
			k = &sideKey{panicked: render.Recovered(r, "reading its inputs")}
		}
	}()
	key, err := inputsKey(a, s.FS, d.Config.RepoURL, s.Rev)
	return &sideKey{key: key, err: err}
}

// side is revision i: 0 base, 1 head.
func (d *Diff) side(i int) Side {
	if i == 1 {
		return d.Head
	}
	return d.Base
}
