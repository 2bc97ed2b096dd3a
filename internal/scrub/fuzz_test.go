package scrub

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// forms are the ways a value is planted in a message; each returns the
// text planted and the text that must not survive.
var forms = []func(v string) (planted, leak string){
	func(v string) (string, string) { return v, v },
	func(v string) (string, string) { return strings.ToUpper(v), strings.ToUpper(v) },
	func(v string) (string, string) { return "'" + v + "'", v },
	func(v string) (string, string) { return "`" + v + "`", v },
	func(v string) (string, string) { return url.QueryEscape(v), url.QueryEscape(v) },
	func(v string) (string, string) { return url.PathEscape(v), url.PathEscape(v) },
	func(v string) (string, string) { p := (&url.URL{Path: v}).EscapedPath(); return p, p },
	func(v string) (string, string) { q := strconv.Quote(v); return q, q[1 : len(q)-1] },
	func(v string) (string, string) { return hex.EncodeToString([]byte(v)), hex.EncodeToString([]byte(v)) },
	func(v string) (string, string) { e := base64.StdEncoding.EncodeToString([]byte(v)); return e, e },
	func(v string) (string, string) { e := base64.RawURLEncoding.EncodeToString([]byte(v)); return e, e },
	// inside a longer base64 text, at each alignment: what depends on v
	// alone must not survive
	func(v string) (string, string) { return embedded(v, 0) },
	func(v string) (string, string) { return embedded(v, 1) },
	func(v string) (string, string) { return embedded(v, 2) },
	func(v string) (string, string) {
		return "https://oauth2:" + v + "@host/x", v
	},
}

func embedded(v string, pre int) (string, string) {
	full := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("P", pre) + v + "::suffix"))
	skip := (3 - pre%3) % 3
	n := (len(v) - skip) / 3 * 3
	if n < 3 {
		return full, ""
	}
	return full, base64.RawStdEncoding.EncodeToString([]byte(v[skip : skip+n]))
}

// FuzzScrub: a value registered in a Set never survives in a cleaned
// message, in any form it was planted in, whatever text surrounds it.
// Values of one to three characters and words of up to six letters are
// checked as whole tokens outside kept positions, the documented rule.
func FuzzScrub(f *testing.F) {
	f.Add("s3cr3tVALUE", "yaml: unknown anchor '", "' referenced", uint8(0))
	f.Add("hunter2", "execution error at (c/templates/x.yaml:1:3): bad ", "", uint8(1))
	f.Add("p@ss/w#rd", "Authorization: Basic ", "\n", uint8(12))
	f.Add("ab", "user ", " denied", uint8(0))
	f.Add("42", "template: c/templates/x.yaml:", ":3: got", uint8(0))
	f.Fuzz(func(t *testing.T, value, prefix, suffix string, which uint8) {
		v := strings.TrimSpace(value)
		if !utf8.ValidString(v) || v == "" || notSecret(v) || strings.Contains(v, Mask[:1]) {
			return
		}
		var s Set
		s.Add(v)
		if utf8.RuneCountInString(v) < minLong || isWord(v) {
			checkShort(t, &s, v, prefix, suffix)
			return
		}
		form := forms[int(which)%len(forms)]
		if int(which)%len(forms) == 1 && !isASCII(v) {
			form = forms[0] // only ASCII letters are matched case-insensitively
		}
		planted, leak := form(v)
		msg := prefix + planted + suffix
		for name, got := range map[string]string{"Foreign": s.Foreign(msg), "Text": s.Text(msg)} {
			if leak != "" && strings.Contains(got, leak) {
				t.Fatalf("%s: %q survived in %q (from %q)", name, leak, got, msg)
			}
			if strings.Contains(lowerASCII(got), lowerASCII(v)) {
				t.Fatalf("%s: value %q survived in %q (from %q)", name, v, got, msg)
			}
		}
	})
}

func checkShort(t *testing.T, s *Set, v, prefix, suffix string) {
	if !hasAlnum(v) {
		return
	}
	msg := prefix + " " + v + " " + suffix
	sp := span{len(prefix) + 1, len(prefix) + 1 + len(v)}
	_, positions := knownForms(msg)
	if touches(sp, positions) {
		return
	}
	for _, m := range s.spans(msg, true) {
		if sp.within(m) {
			return
		}
	}
	t.Fatalf("short value %q kept as a token in %q", v, s.Foreign(msg))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
