package gitsource

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/equiv"
)

// The expressions the string tests replace.
var (
	commitSHARE    = regexp.MustCompile("^[0-9A-Fa-f]{40}$")
	truncatedSHARE = regexp.MustCompile("^[0-9A-Fa-f]{7,}$")
	userRE         = regexp.MustCompile(`^([a-zA-Z][a-zA-Z0-9-]*)@`)
)

var matcherCases = []string{
	"", "0", "abcdef", "abcdef0", "ABCDEF0", "abcdefg", "0123456789abcdef",
	strings.Repeat("a", 39), strings.Repeat("a", 40), strings.Repeat("A", 41), strings.Repeat("0", 40) + "\n",
	"\n" + strings.Repeat("0", 40), strings.Repeat("f", 39) + "g", strings.Repeat("F", 39) + "é", "abcdef0 ", "abc\x00def0",
	"git@github.com:o/r", "@host", "a@", "A-1@h", "1a@h", "-a@h", "a_b@h", "a.b@h", "ab", "a-b-", "é@h", "aé@h",
	"a@b@c", "user:pw@host", "\xffa@h", "a\xff@h", "ssh@", "Z9-@x",
}

var (
	commitSHAPair    = equiv.Pair[bool]{Name: "isCommitSHA", Got: isCommitSHA, Want: commitSHARE.MatchString}
	truncatedSHAPair = equiv.Pair[bool]{Name: "isTruncatedSHA", Got: isTruncatedSHA, Want: truncatedSHARE.MatchString}
	leadingUserPair  = equiv.Pair[string]{Name: "leadingUser",
		Got: func(s string) string { return fmt.Sprint(leadingUser(s)) },
		Want: func(s string) string {
			if m := userRE.FindStringSubmatch(s); m != nil {
				return fmt.Sprint(m[1], true)
			}
			return fmt.Sprint("", false)
		}}
)

// TestMatchersEqualRegexps: the string tests say what the expressions
// they replace said, on the edge cases; the fuzz targets below go on
// from the same table.
func TestMatchersEqualRegexps(t *testing.T) {
	commitSHAPair.Table(t, matcherCases)
	truncatedSHAPair.Table(t, matcherCases)
	leadingUserPair.Table(t, matcherCases)
}

func FuzzIsCommitSHAMatchesRegexp(f *testing.F)    { commitSHAPair.Fuzz(f, matcherCases) }
func FuzzIsTruncatedSHAMatchesRegexp(f *testing.F) { truncatedSHAPair.Fuzz(f, matcherCases) }
func FuzzLeadingUserMatchesRegexp(f *testing.F)    { leadingUserPair.Fuzz(f, matcherCases) }
