// Package suggest finds the names a typo was probably meant to be, for
// "did you mean" hints: of flags and verbs (cmd/internal/cli), of
// .promote.yaml keys (internal/config) and of versions file keys
// (internal/promote). A leaf: it imports nothing of the module.
package suggest

import "strings"

// Close returns the candidates close to typed, in candidates' order:
// typed is a prefix of them, one of four letters or more is a prefix of
// typed ("trackingMethod" for "tracking"), or they are within two edits
// (one for names of up to four letters, where two edits reach unrelated
// words). Single letters get no suggestion.
func Close(typed string, candidates []string) []string {
	if len(typed) < 2 {
		return nil
	}
	maxDist := 2
	if len(typed) <= 4 {
		maxDist = 1
	}
	var out []string
	for _, c := range candidates {
		if c != typed && (strings.HasPrefix(c, typed) || len(c) >= 4 && strings.HasPrefix(typed, c) || Distance(strings.ToLower(typed), strings.ToLower(c)) <= maxDist) {
			out = append(out, c)
		}
	}
	return out
}

// Distance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of neighbours ("form" is
// one edit from "from").
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// Hint renders the suggestions for typed among candidates as
// " (did you mean a or b?)", each with prefix ("--" for flags); "" when
// there is none.
func Hint(prefix, typed string, candidates []string) string {
	return Format(prefix, Close(typed, candidates))
}

// Format renders suggestions found elsewhere (cobra's, for verbs) as Hint
// does: " (did you mean --a or --b?)"; "" for none.
func Format(prefix string, s []string) string {
	if len(s) == 0 {
		return ""
	}
	out := make([]string, len(s))
	for i := range s {
		out[i] = prefix + s[i]
	}
	return " (did you mean " + Or(out) + "?)"
}

// Or joins "a", "a or b", "a, b or c".
func Or(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
