package diff

import (
	"sort"
	"strings"
)

// Options tunes Resources.
type Options struct {
	// Ignore lists field paths left out of every resource before diffing,
	// such as "metadata.labels.helm.sh/chart". A segment may contain dots
	// or slashes: each is matched against the keys that actually exist,
	// longest first. "*" matches any key or list element.
	Ignore []string
	// Context is the number of unified diff context lines; 0 means
	// DefaultContext and a negative value means none.
	Context int
}

// Status says how a resource changed between base and head.
type Status string

// Resource statuses.
const (
	Added     Status = "added"
	Removed   Status = "removed"
	Changed   Status = "changed"
	Unchanged Status = "unchanged"
)

// ResourceDiff is the redacted comparison of one resource.
type ResourceDiff struct {
	APIVersion, Kind, Namespace, Name string
	// GenerateName is set for an object the API server names when Argo
	// CD creates it at sync: Name is then SyncName's stand-in.
	GenerateName string
	Status       Status
	// Diff holds unified hunks of the redacted YAML; "" when unchanged.
	Diff string
	// Generated lists field paths that differ between two renders of the
	// same inputs; they are masked as GeneratedPlaceholder, not reported
	// as changes.
	Generated []string
	// SecretKeys has the per-key status of a Secret's data and stringData.
	SecretKeys []SecretKeyChange
}

// Key identifies the diffed resource like Resource.Key.
func (d ResourceDiff) Key() string {
	return Resource{APIVersion: d.APIVersion, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}.Key()
}

// SecretKeyChange is the status of one Secret key, named "data.<key>" or
// "stringData.<key>": added, removed, changed, unchanged or generated.
type SecretKeyChange struct{ Key, Status string }

// Resources diffs base against head, sorted by key. headAgain is a second
// render of head with the same inputs, or nil: fields that differ between
// head and headAgain are generated, masked on both sides and listed in
// Generated rather than shown as changes.
func Resources(base, head, headAgain []Resource, opt Options) []ResourceDiff {
	bm, hm, am := byKey(base), byKey(head), byKey(headAgain)
	keys := make([]string, 0, len(bm)+len(hm))
	for k := range bm {
		keys = append(keys, k)
	}
	for k := range hm {
		if _, ok := bm[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]ResourceDiff, 0, len(keys))
	for _, k := range keys {
		b, inB := bm[k]
		h, inH := hm[k]
		a, inA := am[k]
		out = append(out, diffOne(k, pick(b, inB), pick(h, inH), pick(a, inA), opt))
	}
	return out
}

func byKey(rs []Resource) map[string]Resource {
	m := make(map[string]Resource, len(rs))
	for _, r := range rs {
		m[r.Key()] = r
	}
	return m
}

func pick(r Resource, ok bool) *Resource {
	if !ok {
		return nil
	}
	return &r
}

// diffOne compares one resource. The order matters: ignore first, then find
// generated paths, then compare sensitive values in clear (in memory only),
// then mask and redact, and only then serialise.
func diffOne(key string, b, h, a *Resource, opt Options) ResourceDiff {
	meta := h
	if meta == nil {
		meta = b
	}
	rd := ResourceDiff{APIVersion: meta.APIVersion, Kind: meta.Kind, Namespace: meta.Namespace, Name: meta.Name, GenerateName: meta.GenerateName}
	bo, ho, ao := prepare(b, opt), prepare(h, opt), prepare(a, opt)

	gen := map[string]bool{}
	var genPaths []path
	if h != nil && a != nil {
		genPaths = leafDiff(ho, ao)
		for _, p := range genPaths {
			gen[p.String()] = true
			rd.Generated = append(rd.Generated, p.String())
		}
	}
	fields := sensitiveFields(bo, ho, gen)
	rd.SecretKeys = secretKeys(fields)
	for _, p := range genPaths {
		setAt(bo, p, GeneratedPlaceholder)
		setAt(ho, p, GeneratedPlaceholder)
	}
	redact(bo, fields, sideBase)
	redact(ho, fields, sideHead)

	by, hy := serialise(bo), serialise(ho)
	switch {
	case b == nil:
		rd.Status = Added
	case h == nil:
		rd.Status = Removed
	case by == hy:
		rd.Status = Unchanged
		return rd
	default:
		rd.Status = Changed
	}
	ctx := opt.Context
	if ctx == 0 {
		ctx = DefaultContext
	}
	name := displayName(rd)
	rd.Diff = Unified(by, hy, "a/"+name, "b/"+name, ctx)
	return rd
}

// displayName is the key without its empty parts, for diff labels.
func displayName(d ResourceDiff) string {
	parts := []string{Group(d.APIVersion), d.Kind, d.Namespace, d.Name}
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "/")
}

func prepare(r *Resource, opt Options) map[string]any {
	if r == nil {
		return nil
	}
	obj := CopyObject(r.Object)
	if obj == nil {
		obj = map[string]any{}
	}
	applyIgnore(obj, opt.Ignore)
	return obj
}

// serialise never fails on what Parse produces; should it, the text says so
// rather than dropping the resource, and it holds no values.
func serialise(obj map[string]any) string {
	s, err := toYAML(obj)
	if err != nil {
		return "# " + err.Error() + "\n"
	}
	return unquotePlaceholders(s)
}

// unquotePlaceholders drops the quotes YAML needs around "<redacted: x>"
// (it contains ": "): the text is for reading, and bare placeholders read
// as what they are.
func unquotePlaceholders(s string) string {
	if !strings.Contains(s, "'<redacted: ") {
		return s
	}
	for _, st := range []string{KeyAdded, KeyRemoved, KeyChanged, KeyGenerated} {
		p := "<redacted: " + st + ">"
		s = strings.ReplaceAll(s, "'"+p+"'", p)
	}
	return s
}
