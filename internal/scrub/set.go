package scrub

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Mask replaces every hidden value.
const Mask = "***"

// minLong is the length (in characters) from which a value is masked
// anywhere; shorter values are masked as whole tokens only. So are words:
// values of up to maxWord ASCII letters (log levels, modes, names such as
// "error", "debug", "deep"), which would otherwise cut through the words
// of every message ("errors", "deeper").
const (
	minLong = 4
	maxWord = 6
)

// Set holds the values and credentials a message must not show, and the
// names it may. The zero value is empty and ready; a Set is not safe for
// concurrent Add, but Error and Text may run concurrently once it is built.
type Set struct {
	fold  map[string][]string // long forms matched ASCII-case-insensitively, by lowered 4-byte prefix
	exact map[string][]string // long forms matched byte for byte (encodings), by 4-byte prefix
	short map[string]bool     // short values and words (lowered), masked as whole tokens
	keep  []string
	seen  map[string]bool
}

// Add registers values. Each is trimmed; empty values and true, false and
// null are ignored.
func (s *Set) Add(values ...string) {
	for _, v := range values {
		s.add(v, 0)
	}
}

func (s *Set) add(v string, depth int) {
	v = strings.TrimSpace(v)
	if v == "" || notSecret(v) || s.seen[v] {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
		s.fold = map[string][]string{}
		s.exact = map[string][]string{}
		s.short = map[string]bool{}
	}
	s.seen[v] = true
	if strings.ContainsAny(v, "\r\n") && depth < 2 {
		for _, l := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == '\r' }) {
			s.add(l, depth+1)
		}
	}
	if isWord(v) {
		s.short[lowerASCII(v)] = true
		return
	}
	if utf8.RuneCountInString(v) < minLong {
		s.short[v] = true
		return
	}
	s.addFold(v)
	for _, f := range escapes(v) {
		s.addExact(f)
	}
	for _, f := range encodings([]byte(v)) {
		s.addExact(f)
	}
	if dec, ok := decodedText(v); ok && depth < 2 {
		s.add(dec, depth+1)
	}
}

// isWord: up to maxWord ASCII letters.
func isWord(v string) bool {
	if len(v) > maxWord {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func notSecret(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "null", "~":
		return true
	}
	return false
}

func (s *Set) addFold(f string) {
	l := lowerASCII(f)
	s.fold[l[:4]] = append(s.fold[l[:4]], l)
}

func (s *Set) addExact(f string) {
	if len(f) < 4 {
		return
	}
	s.exact[f[:4]] = append(s.exact[f[:4]], f)
}

// escapes are the forms v takes inside URLs and quoted strings.
func escapes(v string) []string {
	// a URL path keeps '/' where PathEscape would escape it
	out := []string{url.QueryEscape(v), url.PathEscape(v), (&url.URL{Path: v}).EscapedPath()}
	if q := strconv.Quote(v); len(q) > 2 {
		inner := q[1 : len(q)-1]
		out = append(out, inner, strings.ReplaceAll(strings.ReplaceAll(inner, `\"`, `"`), `'`, `\'`))
	}
	if j, err := json.Marshal(v); err == nil && len(j) > 2 {
		out = append(out, string(j[1:len(j)-1]))
	}
	return append(out, strings.ReplaceAll(v, "'", "''"), hex.EncodeToString([]byte(v)), strings.ToUpper(hex.EncodeToString([]byte(v))))
}

var alphabets = []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding}

// encodings returns b in base64: whole, and as the part of a longer
// encoded string that depends on b alone, at each of the three byte
// alignments b can start at. Masking those cores hides b inside any
// base64 text, such as an echoed "Authorization: Basic ..." header.
func encodings(b []byte) []string {
	var out []string
	for _, enc := range alphabets {
		out = append(out, enc.EncodeToString(b))
	}
	for skip := range 3 {
		n := (len(b) - skip) / 3 * 3
		if n < 3 {
			continue
		}
		core := b[skip : skip+n]
		out = append(out, base64.RawStdEncoding.EncodeToString(core), base64.RawURLEncoding.EncodeToString(core))
	}
	return out
}

// decodedText returns v decoded when v is standard base64 of UTF-8 text,
// as Secret data is.
func decodedText(v string) (string, bool) {
	if len(v) < 8 || len(v)%4 != 0 {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// AddCredential registers a password or token and the ways it travels:
// raw, in "user:password" basic auth, and for a bare token (user "") as
// the password of the users that GitLab, GitHub and git hosts accept.
func (s *Set) AddCredential(user, password string) {
	if password == "" {
		s.Add(user) // a token written as the user part of a URL
		return
	}
	s.Add(password)
	users := []string{user}
	if user == "" {
		users = []string{"", "oauth2", "gitlab-ci-token", "x-access-token", "git", "token"}
	}
	for _, u := range users {
		pair := u + ":" + password
		if utf8.RuneCountInString(pair) >= minLong {
			s.addExact(pair)
			for _, f := range encodings([]byte(pair)) {
				s.addExact(f)
			}
		}
	}
}

// AddURL registers the userinfo written into a URL (or an scp-like git
// address), found without parsing the URL.
func (s *Set) AddURL(raw string) {
	user, pass, ok := userinfo(raw)
	if !ok || pass == "" && loginScheme(raw) {
		return
	}
	s.AddCredential(user, pass)
	if pass != "" {
		if u, err := url.PathUnescape(pass); err == nil && u != pass {
			s.AddCredential(user, u)
		}
	}
}

// loginScheme: a URL whose user part alone is a login name ("git" in
// ssh://git@host/repo), never a token: SSH authenticates with keys.
// Masking it would cut "git" out of every message ("git pull").
func loginScheme(raw string) bool {
	scheme, _, ok := strings.Cut(raw, "://")
	if !ok {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(scheme)) {
	case "ssh", "git+ssh", "ssh+git", "git":
		return true
	}
	return false
}

// Keep lists names that stay readable wherever they appear whole: a
// chart's template and file names, value file names, parameter names,
// the app's name. Only name things that are not secret.
func (s *Set) Keep(names ...string) {
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			s.keep = append(s.keep, n)
		}
	}
}

// lowerASCII lower-cases ASCII letters only, so byte offsets stay valid.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
