package config

import (
	"regexp"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/equiv"
)

// envNameRE is the expression validEnvName replaces.
var envNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

var envNameCases = []string{
	"", "a", "Z", "0", "_", ".", "-", "prod", "qa-2", "eu.west_1", "A-", "a.", "a_", "-a", ".a", "_a",
	"a b", "a/b", "a:b", "a\n", "\na", "é", "aé", "a\xff", "\x00", "ab\x00", "a--..__", "K\u212a",
}

var envNamePair = equiv.Pair[bool]{Name: "validEnvName", Got: validEnvName, Want: envNameRE.MatchString}

// TestValidEnvNameEqualsRegexp: the string test says what the expression
// it replaces said, on the edge cases; the fuzz target goes on from them.
func TestValidEnvNameEqualsRegexp(t *testing.T) { envNamePair.Table(t, envNameCases) }

func FuzzValidEnvNameMatchesRegexp(f *testing.F) { envNamePair.Fuzz(f, envNameCases) }
