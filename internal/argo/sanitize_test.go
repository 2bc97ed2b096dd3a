package argo

import (
	"regexp"
	"strings"
	"testing"
)

// sanitizeRegexp is Argo CD's own normaliser, which SanitizeName replaced.
func sanitizeRegexp(name string) string {
	name = regexp.MustCompile(`[^-a-z0-9.]`).ReplaceAllString(strings.ToLower(name), "-")
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.Trim(name, "-.")
}

var sanitizeCases = []string{"", "a", "Node-Alpha", "Node_Alpha", "node_beta.2", "--x--", "..", "ÄÖü", "İstanbul", "ǅ", "a\xffb", "a\xffÄ", "\xc3",
	"x\u2028y", "a b\tc", strings.Repeat("A_", 200), strings.Repeat("é", 130), "KELVIN\u212a"}

func checkSanitize(t *testing.T, s string) {
	if got, want := SanitizeName(s), sanitizeRegexp(s); got != want {
		t.Fatalf("SanitizeName(%q) = %q, the regular expression gives %q", s, got, want)
	}
}

func TestSanitizeNameEqualsRegexp(t *testing.T) {
	for _, s := range sanitizeCases {
		checkSanitize(t, s)
	}
}

func FuzzSanitizeNameMatchesRegexp(f *testing.F) {
	for _, s := range sanitizeCases {
		f.Add(s)
	}
	f.Fuzz(checkSanitize)
}
