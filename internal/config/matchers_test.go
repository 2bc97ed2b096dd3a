package config

import (
	"regexp"
	"testing"
)

// envNameRE is the expression validEnvName replaces.
var envNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

var envNameCases = []string{
	"", "a", "Z", "0", "_", ".", "-", "prod", "qa-2", "eu.west_1", "A-", "a.", "a_", "-a", ".a", "_a",
	"a b", "a/b", "a:b", "a\n", "\na", "é", "aé", "a\xff", "\x00", "ab\x00", "a--..__", "K\u212a",
}

func checkEnvName(t *testing.T, s string) {
	if got, want := validEnvName(s), envNameRE.MatchString(s); got != want {
		t.Fatalf("validEnvName(%q) = %v, the expression says %v", s, got, want)
	}
}

// TestValidEnvNameEqualsRegexp: the string test says what the expression
// it replaces said, on the edge cases; the fuzz target goes on from them.
func TestValidEnvNameEqualsRegexp(t *testing.T) {
	for _, s := range envNameCases {
		checkEnvName(t, s)
	}
}

func FuzzValidEnvNameMatchesRegexp(f *testing.F) {
	for _, s := range envNameCases {
		f.Add(s)
	}
	f.Fuzz(checkEnvName)
}
