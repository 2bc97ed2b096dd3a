package gitsource

import (
	"regexp"
	"strings"
	"testing"
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

func checkCommitSHA(t *testing.T, s string) {
	if got, want := isCommitSHA(s), commitSHARE.MatchString(s); got != want {
		t.Fatalf("isCommitSHA(%q) = %v, the expression says %v", s, got, want)
	}
}

func checkTruncatedSHA(t *testing.T, s string) {
	if got, want := isTruncatedSHA(s), truncatedSHARE.MatchString(s); got != want {
		t.Fatalf("isTruncatedSHA(%q) = %v, the expression says %v", s, got, want)
	}
}

func checkLeadingUser(t *testing.T, s string) {
	user, ok := leadingUser(s)
	m := userRE.FindStringSubmatch(s)
	if ok != (m != nil) || ok && user != m[1] {
		t.Fatalf("leadingUser(%q) = %q, %v; the expression gives %q", s, user, ok, m)
	}
}

// TestMatchersEqualRegexps: the string tests say what the expressions
// they replace said, on the edge cases; the fuzz targets below go on
// from the same table.
func TestMatchersEqualRegexps(t *testing.T) {
	for _, s := range matcherCases {
		checkCommitSHA(t, s)
		checkTruncatedSHA(t, s)
		checkLeadingUser(t, s)
	}
}

func fuzzMatcher(f *testing.F, check func(*testing.T, string)) {
	for _, s := range matcherCases {
		f.Add(s)
	}
	f.Fuzz(check)
}

func FuzzIsCommitSHAMatchesRegexp(f *testing.F)    { fuzzMatcher(f, checkCommitSHA) }
func FuzzIsTruncatedSHAMatchesRegexp(f *testing.F) { fuzzMatcher(f, checkTruncatedSHA) }
func FuzzLeadingUserMatchesRegexp(f *testing.F)    { fuzzMatcher(f, checkLeadingUser) }
