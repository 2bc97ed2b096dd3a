package scrub

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a half-open byte range of a message.
type span struct{ start, end int }

func (a span) within(b span) bool   { return a.start >= b.start && a.end <= b.end }
func (a span) overlaps(b span) bool { return a.start < b.end && b.start < a.end }

func inside(x span, spans []span) bool {
	for _, s := range spans {
		if x.within(s) {
			return true
		}
	}
	return false
}

func touches(x span, spans []span) bool {
	for _, s := range spans {
		if x.overlaps(s) {
			return true
		}
	}
	return false
}

// Text cleans a message we wrote that may carry values (an app's error
// line, a note): known value slots, every value of the Set and URL
// userinfo are masked. Quoted spans stay, since our own messages quote
// names.
func (s *Set) Text(msg string) string { return s.clean(msg, false) }

// Foreign cleans the text of a library's or a server's error: Text, plus
// every quoted span outside a known position.
func (s *Set) Foreign(msg string) string { return s.clean(msg, true) }

// Error returns err with its text cleaned like Foreign. The result
// unwraps to err so errors.Is and errors.As keep working; never print
// what Unwrap returns.
func (s *Set) Error(err error) error {
	if err == nil {
		return nil
	}
	return &cleaned{msg: s.Foreign(err.Error()), err: err}
}

type cleaned struct {
	msg string
	err error
}

func (e *cleaned) Error() string { return e.msg }
func (e *cleaned) Unwrap() error { return e.err }

func (s *Set) clean(msg string, foreign bool) string {
	if msg == "" {
		return msg
	}
	return apply(msg, s.spans(msg, foreign))
}

// spans returns every byte range of msg to mask.
func (s *Set) spans(msg string, foreign bool) []span {
	keep := s.keepSpans(msg)
	slots, positions := knownForms(msg)
	protect := append(positions, keep...)
	mask := append(slots, userinfoSpans(msg)...)
	mask = append(mask, s.valueSpans(msg, keep, protect)...)
	if foreign {
		mask = append(mask, quotedSpans(msg, protect, keep)...)
	}
	return mask
}

func (s *Set) keepSpans(msg string) []span {
	if s == nil {
		return nil
	}
	var out []span
	for _, k := range s.keep {
		for off := 0; ; {
			i := strings.Index(msg[off:], k)
			if i < 0 {
				break
			}
			out = append(out, span{off + i, off + i + len(k)})
			off += i + 1
		}
	}
	return out
}

// valueSpans finds every form of every value. Long forms are looked up by
// their first four bytes at each offset, so the cost grows with the
// message, not with the number of values.
func (s *Set) valueSpans(msg string, keep, protect []span) []span {
	if s == nil || len(s.seen) == 0 {
		return nil
	}
	var out []span
	lower := lowerASCII(msg)
	for i := 0; i+4 <= len(msg); i++ {
		for _, f := range s.fold[lower[i:i+4]] {
			if strings.HasPrefix(lower[i:], f) {
				out = append(out, span{i, i + len(f)})
			}
		}
		for _, f := range s.exact[msg[i:i+4]] {
			if strings.HasPrefix(msg[i:], f) {
				out = append(out, span{i, i + len(f)})
			}
		}
	}
	kept := out[:0]
	for _, sp := range out {
		if !inside(sp, keep) {
			kept = append(kept, sp)
		}
	}
	out = kept
	for v := range s.short {
		if !hasAlnum(v) {
			continue // "-" or ":" hides nothing and would mask punctuation
		}
		hay := msg
		if isWord(v) {
			hay = lower // words match ASCII-case-insensitively, as v is lowered
		}
		for off := 0; ; {
			i := strings.Index(hay[off:], v)
			if i < 0 {
				break
			}
			sp := span{off + i, off + i + len(v)}
			off = sp.start + 1
			if wholeToken(msg, sp) && !touches(sp, protect) {
				out = append(out, sp)
			}
		}
	}
	return out
}

func hasAlnum(s string) bool {
	return strings.IndexFunc(s, isWordRune) >= 0
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// wholeToken: nothing that continues a name right before or after sp: a
// letter, a digit, or '.', '_', '-', '/' (so "1" stays in 127.0.0.1 and
// "qa" in envs/qa/values.yaml or ledger-qa).
func wholeToken(msg string, sp span) bool {
	if sp.start > 0 {
		r, _ := utf8.DecodeLastRuneInString(msg[:sp.start])
		if isNameRune(r) {
			return false
		}
	}
	if sp.end < len(msg) {
		r, _ := utf8.DecodeRuneInString(msg[sp.end:])
		if isNameRune(r) {
			return false
		}
	}
	return true
}

func isNameRune(r rune) bool { return isWordRune(r) || strings.ContainsRune("._-/", r) }

// quotedSpans returns the insides of '...', "..." and `...` spans that do
// not lie in a protected position, less the kept names they hold. A quote
// right after a letter or digit is an apostrophe ("don't"), not an
// opening quote. Punctuation of at most three characters (yaml's
// "expected ':'") stays.
func quotedSpans(msg string, protect, keep []span) []span {
	var out []span
	for i := 0; i < len(msg); i++ {
		q := msg[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		if i > 0 {
			if r, _ := utf8.DecodeLastRuneInString(msg[:i]); isWordRune(r) {
				continue
			}
		}
		j := closingQuote(msg, i)
		if j < 0 {
			continue
		}
		content := msg[i+1 : j]
		if !inside(span{i, j + 1}, protect) && content != "" && !(len(content) <= 3 && !hasAlnum(content)) {
			out = append(out, subtract(span{i + 1, j}, keep)...)
		}
		i = j
	}
	return out
}

// subtract returns the parts of x outside every span of cut.
func subtract(x span, cut []span) []span {
	parts := []span{x}
	for _, c := range cut {
		var next []span
		for _, p := range parts {
			if !p.overlaps(c) {
				next = append(next, p)
				continue
			}
			if p.start < c.start {
				next = append(next, span{p.start, c.start})
			}
			if c.end < p.end {
				next = append(next, span{c.end, p.end})
			}
		}
		parts = next
	}
	return parts
}

// closingQuote finds the quote closing the one at i, skipping backslash
// escapes; a closing single quote must not be followed by a letter or
// digit (that one is an apostrophe).
func closingQuote(msg string, i int) int {
	q := msg[i]
	for j := i + 1; j < len(msg); j++ {
		switch msg[j] {
		case '\\':
			if q != '`' {
				j++
			}
		case q:
			if q == '\'' && j+1 < len(msg) {
				if r, _ := utf8.DecodeRuneInString(msg[j+1:]); isWordRune(r) {
					continue
				}
			}
			return j
		}
	}
	return -1
}

// apply replaces the union of spans with Mask.
func apply(msg string, spans []span) string {
	if len(spans) == 0 {
		return msg
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	b.Grow(len(msg))
	pos := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		for i++; i < len(spans) && spans[i].start <= cur.end; i++ {
			cur.end = max(cur.end, spans[i].end)
		}
		if cur.start < pos {
			cur.start = pos
		}
		b.WriteString(msg[pos:cur.start])
		b.WriteString(Mask)
		pos = cur.end
	}
	b.WriteString(msg[pos:])
	return b.String()
}
