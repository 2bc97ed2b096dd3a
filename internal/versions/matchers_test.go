package versions

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// TestMatchersEqualRegexps: isRange and isDigest match exactly what the
// regular expressions they replace matched.
func TestMatchersEqualRegexps(t *testing.T) {
	rangeRE := regexp.MustCompile(`[\^~*<>=|]|\s-\s|\s`)
	wildcardRE := regexp.MustCompile(`(^|\.)[xX*](\.|$)`)
	digestRE := regexp.MustCompile(`^(sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128})$`)
	check := func(s string) {
		if got, want := isRange(s), rangeRE.MatchString(s) || wildcardRE.MatchString(s); got != want {
			t.Fatalf("isRange(%q) = %v, the expressions say %v", s, got, want)
		}
		if got, want := isDigest(s), digestRE.MatchString(s); got != want {
			t.Fatalf("isDigest(%q) = %v, the expression says %v", s, got, want)
		}
	}
	const alphabet = "1x.X*^ -\t\v|a"
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		check(prefix)
		if n > 0 {
			for i := 0; i < len(alphabet); i++ {
				gen(prefix+alphabet[i:i+1], n-1)
			}
		}
	}
	gen("", 4)
	r := rand.New(rand.NewSource(1))
	hex := "0123456789abcdefABCDEFg"
	for range 20000 {
		for _, p := range []string{"sha256:", "sha512:", "sha1:", ""} {
			n := []int{63, 64, 65, 127, 128, 129}[r.Intn(6)]
			b := make([]byte, n)
			for i := range b {
				b[i] = hex[r.Intn(16)]
			}
			if r.Intn(4) == 0 {
				b[r.Intn(n)] = hex[r.Intn(len(hex))]
			}
			check(p + string(b))
			check(p + strings.ToUpper(string(b)))
		}
	}
	for _, s := range []string{"v1.2.3", "1.x", "1.2.X", "*", ">=1.0", "1.0 - 2.0", "v1\u00a0x", "1.2.3\u2028", "latest"} {
		check(s)
	}
}
