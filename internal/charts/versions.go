package charts

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// nearestCount is how many versions a not-found message suggests.
const nearestCount = 5

// VersionNotFoundError is the concrete error for ErrVersionNotFound.
type VersionNotFoundError struct {
	Repo, Chart, Version string
	// Nearest holds up to five available versions around Version, newest
	// first; Total counts all available versions.
	Nearest []string
	Total   int
}

func (e *VersionNotFoundError) Error() string {
	msg := fmt.Sprintf("chart %s version %s not found in %s", e.Chart, e.Version, e.Repo)
	if e.Total == 0 {
		return msg + " (no versions published)"
	}
	return fmt.Sprintf("%s; nearest of %d available: %s", msg, e.Total, strings.Join(e.Nearest, ", "))
}

func (e *VersionNotFoundError) Unwrap() error { return ErrVersionNotFound }

func versionNotFound(r *repoRef, chart, version string, available []string) error {
	sorted := sortVersions(available)
	return &VersionNotFoundError{
		Repo: r.display, Chart: chart, Version: version,
		Nearest: nearest(sorted, version, nearestCount),
		Total:   len(sorted),
	}
}

// sortVersions returns a sorted copy, newest first, the order Helm shows.
// Strings that are not versions go last, in lexical order, so the result
// is deterministic whatever the repository serves.
func sortVersions(vs []string) []string {
	type item struct {
		s string
		v *semver.Version
	}
	items := make([]item, len(vs))
	for i, s := range vs {
		v, _ := semver.NewVersion(s)
		items[i] = item{s, v}
	}
	slices.SortStableFunc(items, func(a, b item) int {
		switch {
		case a.v != nil && b.v != nil:
			if c := b.v.Compare(a.v); c != 0 {
				return c
			}
			return strings.Compare(a.s, b.s)
		case a.v != nil:
			return -1
		case b.v != nil:
			return 1
		}
		return strings.Compare(a.s, b.s)
	})
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.s
	}
	return out
}

// nearest picks up to n versions around want from sorted (newest first):
// the ones a person most likely meant when the exact version is missing.
func nearest(sorted []string, want string, n int) []string {
	if len(sorted) <= n {
		return sorted
	}
	w, err := semver.NewVersion(want)
	if err != nil {
		return sorted[:n]
	}
	// sortVersions puts versions before other tags; only versions can be
	// near a version.
	parsed := make([]*semver.Version, 0, len(sorted))
	for _, s := range sorted {
		v, err := semver.NewVersion(s)
		if err != nil {
			break
		}
		parsed = append(parsed, v)
	}
	if len(parsed) < n {
		return sorted[:n]
	}
	newer := 0
	for newer < len(parsed) && parsed[newer].Compare(w) > 0 {
		newer++
	}
	start := min(max(newer-n/2, 0), len(parsed)-n)
	return sorted[start : start+n]
}

// sameVersion matches exactly, or as equal semantic versions ("v1.2.3"
// and "1.2.3"), which is how Helm resolves a pinned version.
func sameVersion(have, want string) bool {
	if have == want {
		return true
	}
	a, err1 := semver.NewVersion(have)
	b, err2 := semver.NewVersion(want)
	return err1 == nil && err2 == nil && a.Equal(b) && a.Metadata() == b.Metadata()
}

// IsConstraint reports whether a chart targetRevision is a semantic
// version range ("4.*", "^1.2", ">=1.0 <2") rather than one version, by
// Argo CD's rule: anything that parses as a version is a pin.
func IsConstraint(revision string) bool {
	if revision == "" {
		return false
	}
	if _, err := semver.NewVersion(revision); err == nil {
		return false
	}
	_, err := semver.NewConstraint(revision)
	return err == nil
}

// MaxVersion returns the highest of versions that satisfies constraint,
// as Argo CD resolves a Helm source's targetRevision range: entries that
// are not versions are ignored, pre-releases match only a constraint that
// names one, and the version is returned as the repository spells it. A
// revision that parses as a version is returned as it is.
func MaxVersion(constraint string, versions []string) (string, error) {
	if v, err := semver.NewVersion(constraint); err == nil {
		return v.Original(), nil
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		if slices.Contains(versions, constraint) {
			return constraint, nil
		}
		return "", fmt.Errorf("invalid version constraint %q: %w", constraint, err)
	}
	var best *semver.Version
	for _, s := range versions {
		v, err := semver.NewVersion(s)
		if err != nil {
			continue
		}
		if c.Check(v) && (best == nil || v.GreaterThan(best)) {
			best = v
		}
	}
	if best == nil {
		return "", fmt.Errorf("no version matching %s among %d: %w", constraint, len(versions), ErrVersionNotFound)
	}
	return best.Original(), nil
}

// ResolveVersion resolves a targetRevision that is a version range to
// the highest matching version the repository publishes (its index, or
// an OCI repository's tags), as Argo CD's repo-server does; a pinned
// version is returned unchanged without a lookup. promote never calls
// this: floating versions are its policy to refuse.
func (c *Client) ResolveVersion(ctx context.Context, repoURL, chart, revision string) (string, error) {
	if !IsConstraint(revision) {
		return revision, nil
	}
	vs, err := c.Versions(ctx, repoURL, chart)
	if err != nil {
		return "", err
	}
	v, err := MaxVersion(revision, vs)
	if err != nil {
		return "", fmt.Errorf("chart %s in %s: %w", chart, stripUserinfo(repoURL), err)
	}
	return v, nil
}
