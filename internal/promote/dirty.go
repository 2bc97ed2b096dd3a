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
	dirty, err := a.Repo.DirtyPaths(append(slices.Clone(touched), a.WarnIfDirty...))
	if err != nil {
		return nil, err
	}
	return a.sortDirty(touched, dirty), nil
}

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
