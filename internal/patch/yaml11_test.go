package patch

import (
	"math/rand"
	"regexp"
	"testing"
)

// The expressions the hand-written YAML 1.1 matchers replace.
var (
	wordRE  = regexp.MustCompile(`^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|~|null|Null|NULL|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)|<<|=)$`)
	floatRE = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	timeRE  = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}`)
	sexaRE  = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$`)
)

// TestYAML11MatchersEqualRegexps compares each matcher with its expression
// on every string of up to 5 characters over the characters that matter,
// on random longer ones, and on the words themselves.
func TestYAML11MatchersEqualRegexps(t *testing.T) {
	matchers := []struct {
		name string
		re   *regexp.Regexp
		fn   func(string) bool
	}{
		{"word", wordRE, yaml11Word},
		{"float", floatRE, yaml11Float},
		{"time", timeRE, yaml11Time},
		{"sexagesimal", sexaRE, yaml11Sexagesimal},
	}
	check := func(s string) {
		for _, m := range matchers {
			if got, want := m.fn(s), m.re.MatchString(s); got != want {
				t.Fatalf("%s(%q) = %v, the expression says %v", m.name, s, got, want)
			}
		}
	}
	const alphabet = "0569_:.-+eEa"
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		check(prefix)
		if n == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			gen(prefix+alphabet[i:i+1], n-1)
		}
	}
	gen("", 5)
	r := rand.New(rand.NewSource(1))
	for range 200000 {
		b := make([]byte, 6+r.Intn(14))
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		check(string(b))
	}
	for _, s := range []string{"y", "Yes", "NULL", "~", "<<", "=", ".inf", "-.Inf", "+.INF", "-.nan", ".NaN", "inf", "yes ",
		"2024-01-02", "2024-1-2T3", "2024-123-1", "12024-01-02", "1:30", "-1:61", "190:20:30.15", "1:5_", "1e3", ".5e-2", "1.", "+.e1"} {
		check(s)
	}
}
