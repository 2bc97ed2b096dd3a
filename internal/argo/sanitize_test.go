package argo

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/equiv"
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

var sanitizePair = equiv.Pair[string]{Name: "SanitizeName", Got: SanitizeName, Want: sanitizeRegexp}

func TestSanitizeNameEqualsRegexp(t *testing.T) { sanitizePair.Table(t, sanitizeCases) }

func FuzzSanitizeNameMatchesRegexp(f *testing.F) { sanitizePair.Fuzz(f, sanitizeCases) }
