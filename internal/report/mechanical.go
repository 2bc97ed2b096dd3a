package report

import (
	"sort"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// The kinds of line change that follow from a version move, in the order
// the outputs count them.
const (
	LineChartLabel = "chart label"         // helm.sh/chart: name-1.0.0 → name-1.1.0
	LineImage      = "image tag"           // image: repo:v1 → repo:v2
	LineChecksum   = "checksum annotation" // checksum/config: <hash> → <hash>
	LineVersion    = "other version value" // app.kubernetes.io/version and any value equal to a moved version
)

// LineKinds lists the kinds in the order the outputs count them.
var LineKinds = []string{LineChartLabel, LineImage, LineVersion, LineChecksum}

// mechanicalLines reports whether every changed line of a changed resource
// follows from its env's version moves (rep, see moveReplacer), and counts those lines by kind.
// A line follows when it is a checksum/ annotation (a hash of the chart's
// own files, which changes with them), or when writing each moved
// version's new value over its old one turns the old line into the new
// (a chart label name-old → name-new, a version label, an image tag).
// Lines are paired in order within each run of removals and additions;
// runs of unequal length, an added or removed resource, a Secret value
// (redacted, so unknowable) never follow.
func mechanicalLines(rd diff.ResourceDiff, rep *strings.Replacer) (map[string]int, bool) {
	if rd.Status != diff.Changed {
		return nil, false
	}
	counts := map[string]int{}
	var minus, plus []string
	flush := func() bool {
		if len(minus) != len(plus) {
			return false
		}
		for i := range minus {
			kind, ok := lineFollows(minus[i], plus[i], rep)
			if !ok {
				return false
			}
			counts[kind]++
		}
		minus, plus = minus[:0], plus[:0]
		return true
	}
	for _, l := range strings.Split(hunks(rd.Diff), "\n") {
		switch {
		case strings.HasPrefix(l, "-"):
			if len(plus) > 0 && !flush() {
				return nil, false
			}
			minus = append(minus, l[1:])
		case strings.HasPrefix(l, "+"):
			plus = append(plus, l[1:])
		default:
			if !flush() {
				return nil, false
			}
		}
	}
	if !flush() || len(counts) == 0 {
		return nil, false
	}
	return counts, true
}

// lineFollows classifies one old → new line pair.
func lineFollows(old, new string, rep *strings.Replacer) (string, bool) {
	ok, nk := annotationKey(old), annotationKey(new)
	if ok != "" && ok == nk && strings.HasPrefix(ok, "checksum/") {
		return LineChecksum, true
	}
	if rep.Replace(old) != new {
		return "", false
	}
	switch t := strings.TrimSpace(new); {
	case strings.Contains(t, "helm.sh/chart"):
		return LineChartLabel, true
	case strings.HasPrefix(strings.TrimPrefix(t, "- "), "image:"):
		return LineImage, true
	}
	return LineVersion, true
}

// annotationKey is the key of a "key: value" line, "" when there is none.
func annotationKey(l string) string {
	k, _, ok := strings.Cut(strings.TrimSpace(l), ":")
	if !ok {
		return ""
	}
	return strings.Trim(k, `"'`)
}

// moveReplacer writes every moved version's new value over its old one,
// the longest old value first so "v1.2.0" wins over "1.2.0"; a tag with a
// leading v also moves without it (app.kubernetes.io/version: 1.2.0).
// Values too short to be versions are left out: "1" → "2" would make any
// digit look mechanical. nil when no move is usable.
func moveReplacer(ms []Move) *strings.Replacer {
	pairs := map[string]string{}
	add := func(o, n string) {
		if len(o) >= 3 && n != "" && o != n {
			pairs[o] = n
		}
	}
	for _, m := range ms {
		add(m.Old, m.New)
		if strings.HasPrefix(m.Old, "v") && strings.HasPrefix(m.New, "v") {
			add(m.Old[1:], m.New[1:])
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	olds := make([]string, 0, len(pairs))
	for o := range pairs {
		olds = append(olds, o)
	}
	sort.Slice(olds, func(i, j int) bool {
		if len(olds[i]) != len(olds[j]) {
			return len(olds[i]) > len(olds[j])
		}
		return olds[i] < olds[j]
	})
	args := make([]string, 0, 2*len(olds))
	for _, o := range olds {
		args = append(args, o, pairs[o])
	}
	return strings.NewReplacer(args...)
}
