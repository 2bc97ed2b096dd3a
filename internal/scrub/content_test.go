package scrub

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestContent(t *testing.T) {
	var s Set
	s.AddCredential("", "glpat-Tok3n-value")
	s.AddCredential("robot", "p1x")
	tests := []struct{ name, in, want string }{
		{"value", "data:\n  token: glpat-Tok3n-value\n", "data:\n  token: ***\n"},
		{"upper case", "X: GLPAT-TOK3N-VALUE", "X: ***"},
		{"base64", "k: " + base64.StdEncoding.EncodeToString([]byte("glpat-Tok3n-value")), "k: ***"},
		{"basic auth", "auth: " + base64.StdEncoding.EncodeToString([]byte("oauth2:glpat-Tok3n-value")), "auth: ***"},
		{"url-escaped in a name", "name: x%2Fglpat-Tok3n-value", "name: x%2F***"},
		{"quotes are content", `msg: 'not a secret' "nor this"`, `msg: 'not a secret' "nor this"`},
		{"userinfo of an unknown credential stays", "url: https://u:other@host/", "url: https://u:other@host/"},
		{"short value as a token", "pw: p1x\nname: p1xy", "pw: ***\nname: p1xy"},
		{"no value", "kind: Secret", "kind: Secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.Content(tt.in); got != tt.want {
				t.Errorf("Content(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	var empty *Set
	if got := empty.Content("glpat-Tok3n-value"); got != "glpat-Tok3n-value" || !empty.Empty() {
		t.Errorf("nil Set: %q", got)
	}
}

// contentForms add to forms the ways a credential travels in manifests:
// a docker config's auth, a basic auth header of a bare token, inside a
// YAML block scalar, a JSON string.
var contentForms = append(forms[:len(forms):len(forms)],
	func(v string) (string, string) {
		e := base64.StdEncoding.EncodeToString([]byte("robot:" + v))
		return `{"auths":{"r":{"auth":"` + e + `"}}}`, e
	},
	func(v string) (string, string) {
		e := base64.StdEncoding.EncodeToString([]byte("gitlab-ci-token:" + v))
		return "Authorization: Basic " + e, e
	},
	func(v string) (string, string) { return "data:\n  f: |\n    a\n    " + v + "\n", v },
	func(v string) (string, string) {
		j := strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`)
		return `{"k":"` + j + `"}`, j
	},
)

// FuzzContent: a credential registered in a Set never survives in
// masked content, in any form it was planted in, whatever content
// surrounds it; short ones never survive as a whole token.
func FuzzContent(f *testing.F) {
	f.Add("glpat-s3cr3t", "apiVersion: v1\nkind: ConfigMap\ndata:\n  t: ", "\n", uint8(0))
	f.Add("p@ss/w#rd", "metadata:\n  name: x-", "-y\n", uint8(16))
	f.Add("hunter22", "", "", uint8(15))
	f.Add("ab", "k: ", "\n", uint8(0))
	f.Fuzz(func(t *testing.T, value, prefix, suffix string, which uint8) {
		v := strings.TrimSpace(value)
		if !utf8.ValidString(v) || v == "" || notSecret(v) || strings.Contains(v, Mask[:1]) || strings.ContainsAny(v, "\r\n") {
			return
		}
		var s Set
		s.AddCredential("robot", v)
		s.AddCredential("", v)
		if utf8.RuneCountInString(v) < minLong || isWord(v) {
			if !hasAlnum(v) {
				return
			}
			content := prefix + " " + v + " " + suffix
			sp := span{len(prefix) + 1, len(prefix) + 1 + len(v)}
			for _, m := range s.valueSpans(content, nil, nil) {
				if sp.within(m) {
					return
				}
			}
			t.Fatalf("short credential %q kept as a token in %q", v, s.Content(content))
		}
		i := int(which) % len(contentForms)
		form := contentForms[i]
		if i == 1 && !isASCII(v) {
			form = contentForms[0] // only ASCII letters are matched case-insensitively
		}
		planted, leak := form(v)
		content := prefix + planted + suffix
		got := s.Content(content)
		if leak != "" && strings.Contains(got, leak) {
			t.Fatalf("%q survived in %q (from %q)", leak, got, content)
		}
		if strings.Contains(lowerASCII(got), lowerASCII(v)) {
			t.Fatalf("credential %q survived in %q (from %q)", v, got, content)
		}
	})
}
