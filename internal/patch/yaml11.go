package patch

import (
	"strconv"
	"strings"
)

// yaml11NonString reports whether a YAML 1.1 reader (go-yaml v2, as used by
// sigs.k8s.io/yaml) would resolve plain s to something other than a string.
// It errs on the side of quoting.
//
// The matchers below are hand-written rather than regular expressions:
// compiling four expressions at package init cost promote more than the
// matching ever does. yaml11_test.go proves them equal to the expressions
// they replace.
func yaml11NonString(s string) bool {
	if yaml11Word(s) || yaml11Time(s) || yaml11Sexagesimal(s) {
		return true
	}
	if !strings.ContainsRune("0123456789+-.", rune(s[0])) {
		return false
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return true
	}
	if yaml11Float(plain) {
		return true
	}
	for _, p := range []string{"0b", "-0b", "+0b"} {
		if rest, ok := strings.CutPrefix(plain, p); ok {
			if _, err := strconv.ParseUint(rest, 2, 64); err == nil {
				return true
			}
		}
	}
	return false
}

// yaml11Word: the bools, nulls, infinities and NaNs of YAML 1.1, the merge
// key and the value key.
func yaml11Word(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
		"true", "True", "TRUE", "false", "False", "FALSE",
		"on", "On", "ON", "off", "Off", "OFF",
		"~", "null", "Null", "NULL", ".nan", ".NaN", ".NAN", "<<", "=":
		return true
	}
	switch s[signLen(s):] {
	case ".inf", ".Inf", ".INF":
		return true
	}
	return false
}

// yaml11Float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
func yaml11Float(s string) bool {
	i := signLen(s)
	if d := digits(s, i); d > 0 {
		i += d
		if i < len(s) && s[i] == '.' {
			i++
			i += digits(s, i)
		}
	} else {
		if i >= len(s) || s[i] != '.' || digits(s, i+1) == 0 {
			return false
		}
		i++
		i += digits(s, i)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		i += signLen(s[i:])
		d := digits(s, i)
		if d == 0 {
			return false
		}
		i += d
	}
	return i == len(s)
}

// yaml11Time: a prefix [0-9]{4}-[0-9]{1,2}-[0-9]{1,2} (a date, or the
// start of a timestamp).
func yaml11Time(s string) bool {
	if digits(s, 0) < 4 || len(s) < 5 || s[4] != '-' {
		return false
	}
	m := digits(s, 5)
	if m < 1 || m > 2 || 5+m >= len(s) || s[5+m] != '-' {
		return false
	}
	return digits(s, 6+m) >= 1
}

// yaml11Sexagesimal: [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?, the
// base-60 numbers (1:30) YAML 1.1 reads as integers or floats.
func yaml11Sexagesimal(s string) bool {
	i := signLen(s)
	if digits(s, i) == 0 {
		return false
	}
	i = skipDigitsOrUnderscores(s, i)
	groups := 0
	for i < len(s) && s[i] == ':' {
		i++
		switch d := digits(s, i); {
		case d == 1:
			i++
		case d == 2 && s[i] <= '5':
			i += 2
		default:
			return false
		}
		groups++
	}
	if groups == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i = skipDigitsOrUnderscores(s, i+1)
	}
	return i == len(s)
}

// signLen is 1 when s starts with a sign.
func signLen(s string) int {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		return 1
	}
	return 0
}

// digits counts the ASCII digits of s from i.
func digits(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '9' {
		n++
	}
	return n
}

func skipDigitsOrUnderscores(s string, i int) int {
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '_') {
		i++
	}
	return i
}
