package argo

import (
	"strings"
	"unicode"
)

// pathspecMatch reports whether git's `git ls-files -- pattern` lists the
// file name, which is how Argo CD's git files generator selects files by
// default: a pattern without wildcards names a file or every file below
// a directory; otherwise it is matched as a whole with git's wildmatch
// without WM_PATHNAME, where "*" (and "**") and "?" also match "/",
// "[...]" is a bracket expression and "\" escapes. There are no {a,b}
// alternatives.
func pathspecMatch(pattern, name string) bool {
	for strings.HasPrefix(pattern, "./") {
		pattern = pattern[2:]
	}
	if pattern == "" || pattern == "." {
		return true
	}
	lit := strings.IndexAny(pattern, `*?[\`)
	if lit < 0 {
		if name == pattern {
			return true
		}
		return strings.HasPrefix(name, pattern) &&
			(strings.HasSuffix(pattern, "/") || name[len(pattern)] == '/')
	}
	if !strings.HasPrefix(name, pattern[:lit]) {
		return false
	}
	return wildmatch(pattern[lit:], name[lit:])
}

// wildmatch is git's wildmatch with no flags.
func wildmatch(p, s string) bool {
	// Classic backtracking over the last '*': since '*' matches any
	// sequence, resuming from the latest star is complete.
	starP, starS := -1, 0
	pi, si := 0, 0
	for si < len(s) {
		if pi < len(p) {
			switch c := p[pi]; c {
			case '*':
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				starP, starS = pi, si
				continue
			case '?':
				pi++
				si++
				continue
			case '[':
				ok, next, valid := matchBracket(p, pi, s[si])
				if !valid {
					return false // git aborts the whole match
				}
				if ok {
					pi, si = next, si+1
					continue
				}
			case '\\':
				if pi+1 < len(p) && p[pi+1] == s[si] {
					pi += 2
					si++
					continue
				}
			default:
				if c == s[si] {
					pi++
					si++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starS++
		pi, si = starP, starS
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// matchBracket matches byte c against the bracket expression at p[i]
// ("[" ... "]"); valid is false when the expression is not closed.
func matchBracket(p string, i int, c byte) (ok bool, next int, valid bool) {
	j := i + 1
	negate := false
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		negate, j = true, j+1
	}
	first := true
	for j < len(p) {
		ch := p[j]
		if ch == ']' && !first {
			return ok != negate, j + 1, true
		}
		first = false
		switch {
		case ch == '[' && j+1 < len(p) && p[j+1] == ':':
			end := strings.Index(p[j+2:], ":]")
			if end < 0 {
				return false, 0, false
			}
			if charClass(p[j+2:j+2+end], c) {
				ok = true
			}
			j += end + 4
			continue
		case ch == '\\' && j+1 < len(p):
			j++
			ch = p[j]
		}
		if j+2 < len(p) && p[j+1] == '-' && p[j+2] != ']' {
			hi := p[j+2]
			if hi == '\\' && j+3 < len(p) {
				hi = p[j+3]
				j++
			}
			if ch <= c && c <= hi {
				ok = true
			}
			j += 3
			continue
		}
		if ch == c {
			ok = true
		}
		j++
	}
	return false, 0, false
}

func charClass(name string, c byte) bool {
	r := rune(c)
	switch name {
	case "alnum":
		return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r))
	case "alpha":
		return r < 128 && unicode.IsLetter(r)
	case "blank":
		return c == ' ' || c == '\t'
	case "cntrl":
		return c < 32 || c == 127
	case "digit":
		return c >= '0' && c <= '9'
	case "graph":
		return c > 32 && c < 127
	case "lower":
		return c >= 'a' && c <= 'z'
	case "print":
		return c >= 32 && c < 127
	case "punct":
		return c > 32 && c < 127 && !(unicode.IsLetter(r) || unicode.IsDigit(r))
	case "space":
		return c == ' ' || (c >= '\t' && c <= '\r')
	case "upper":
		return c >= 'A' && c <= 'Z'
	case "xdigit":
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
	}
	return false
}
