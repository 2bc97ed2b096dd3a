package gitsource

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/go-git/go-git/v5/plumbing"
)

type remoteRef struct {
	name     string // refs/heads/main, HEAD, ...
	hash     plumbing.Hash
	target   string // of a symbolic ref
	symbolic bool
}

var (
	commitSHA    = regexp.MustCompile("^[0-9A-Fa-f]{40}$")
	truncatedSHA = regexp.MustCompile("^[0-9A-Fa-f]{7,}$")
)

// literalRef as a tag prefix asks for no version range resolution.
const literalRef = "\x00literal"

func isCommitSHA(s string) bool    { return commitSHA.MatchString(s) }
func isTruncatedSHA(s string) bool { return truncatedSHA.MatchString(s) }

// pickRef resolves revision against the remote's refs as Argo CD's
// repo-server does: "" is HEAD; a semver range picks the highest tag
// that satisfies it (among those starting with tagPrefix, which is then
// part of the tag's name); then the first ref whose full or short name
// is the revision, a symbolic one (HEAD) followed to its target.
func pickRef(refs []remoteRef, revision, tagPrefix string) (remoteRef, error) {
	if revision == "" {
		revision = "HEAD"
	}
	if tagPrefix != literalRef {
		if v, err := maxVersion(revision, tags(refs), tagPrefix); err == nil {
			revision = v
		}
	}
	short := shortName(revision) == revision
	byName := map[string]remoteRef{}
	for _, r := range refs {
		if !r.symbolic {
			byName[r.name] = r
		}
	}
	for _, r := range refs {
		if (short && shortName(r.name) == revision) || r.name == revision {
			if !r.symbolic {
				return r, nil
			}
			if t, ok := byName[r.target]; ok {
				return t, nil
			}
		}
	}
	return remoteRef{}, fmt.Errorf("unable to resolve '%s' to a commit SHA: revision not found", revision)
}

func tags(refs []remoteRef) []string {
	var out []string
	for _, r := range refs {
		if strings.HasPrefix(r.name, "refs/tags/") {
			out = append(out, strings.TrimPrefix(r.name, "refs/tags/"))
		}
	}
	return out
}

// shortName is git's short form of a ref name.
func shortName(name string) string {
	return plumbing.ReferenceName(name).Short()
}

// maxVersion is Argo CD's tag resolution of a targetRevision: an exact
// version is a pin (the tag of that name), a constraint picks the highest
// satisfying tag; with a tag prefix, only tags carrying it count and the
// prefix is compared away.
func maxVersion(revision string, tags []string, prefix string) (string, error) {
	var stripped []string
	for _, t := range tags {
		if rest, ok := strings.CutPrefix(t, prefix); ok {
			stripped = append(stripped, rest)
		}
	}
	if v, err := semver.NewVersion(revision); err == nil {
		return prefix + v.Original(), nil
	}
	c, err := semver.NewConstraint(revision)
	if err != nil {
		if prefix == "" && slices.Contains(stripped, revision) {
			return revision, nil
		}
		return "", err
	}
	var best *semver.Version
	for _, t := range stripped {
		v, err := semver.NewVersion(t)
		if err != nil {
			continue
		}
		if c.Check(v) && (best == nil || v.GreaterThan(best)) {
			best = v
		}
	}
	if best == nil {
		return "", fmt.Errorf("version matching constraint not found in %d tags", len(stripped))
	}
	return prefix + best.Original(), nil
}
