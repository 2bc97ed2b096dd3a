package promote

import (
	"fmt"
	"slices"
)

// WarnDirty warns about uncommitted changes to the WarnIfDirty files (for
// plan, which checks nothing else).
func (a *Apply) WarnDirty() {
	if len(a.WarnIfDirty) > 0 {
		_, _ = a.dirty(nil)
	}
}

// dirty checks the touched files and the warn-only files with one read of
// the index (2 MB in a 20,000-file repository): it warns about the latter
// and returns the touched files that are dirty.
func (a *Apply) dirty(touched []string) ([]string, error) {
	return a.startDirty(touched).wait()
}

// dirtyCheck is dirty's check running in the background: it only reads,
// so it can run while the chart check waits on the network.
type dirtyCheck struct {
	a       *Apply
	touched []string
	done    chan dirtyResult
}

type dirtyResult struct {
	dirty []string
	err   error
}

func (a *Apply) startDirty(touched []string) *dirtyCheck {
	c := &dirtyCheck{a: a, touched: touched, done: make(chan dirtyResult, 1)}
	go func() {
		d, err := a.Repo.DirtyPaths(append(slices.Clone(touched), a.WarnIfDirty...))
		c.done <- dirtyResult{d, err}
	}()
	return c
}

// wait returns what dirty returns, warning as dirty does.
func (c *dirtyCheck) wait() ([]string, error) {
	r := <-c.done
	if r.err != nil {
		return nil, r.err
	}
	return c.a.sortDirty(c.touched, r.dirty), nil
}

// discard waits for the check without a word: the run stops for another
// reason, and is done with the repository only once the check is.
func (c *dirtyCheck) discard() { <-c.done }

// sortDirty warns about the dirty files apply does not touch and returns
// those it does.
func (a *Apply) sortDirty(touched, dirty []string) []string {
	var refused []string
	for _, d := range dirty {
		if slices.Contains(touched, d) {
			refused = append(refused, d)
		} else {
			a.log().Warn(fmt.Sprintf("%s has uncommitted changes, which are not promoted: promoting its committed values", d))
		}
	}
	return refused
}
