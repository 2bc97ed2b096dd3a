package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Everything a report shows of a repository (app, env, resource names,
// kinds, namespaces, error messages, rendered YAML) is written by whoever
// opened the merge request. The note is posted with the project's token,
// so text that GitLab reads as an instruction would act as that token:
// a quick action ("/approve", "/merge") is any line that starts with "/"
// once GitLab has deleted every "\r" (Gitlab::QuickActions::Extractor),
// and "@name" outside code notifies that user, group or everyone
// ("@all"). So no repository text may start a line or end one, and no
// "@" of it may stay live outside code. The helpers here are what every
// presenter uses to show such text.

// zwj after "@" keeps the "@" visible but makes it no mention: GitLab's
// user reference needs a name character right after the "@".
const zwj = "\u200d"

// spell makes s one line of visible text: control characters, the
// Unicode line and paragraph separators and the bidi overrides (which
// can make a terminal or a browser show other text than is there) are
// written out as Go escapes ("\n", "\x1b", "\u2028"), and so is every
// byte that is not UTF-8. keepTab leaves tabs alone, for diff lines.
func spell(s string, keepTab bool) string {
	if !needsSpelling(s, keepTab) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&sb, `\x%02x`, s[i])
		case r == '\t' && keepTab:
			sb.WriteByte('\t')
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteString(s[i : i+n])
		}
		i += n
	}
	return sb.String()
}

func needsSpelling(s string, keepTab bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && !(c == '\t' && keepTab) || c == 0x7f || c >= 0x80 {
			// non-ASCII is checked rune by rune below; most names are ASCII
			if c < 0x80 {
				return true
			}
			for _, r := range s[i:] {
				if r == utf8.RuneError || hidden(r) || r < 0x20 && !(r == '\t' && keepTab) || r == 0x7f {
					return true
				}
			}
			return false
		}
	}
	return false
}

// hidden: C1 controls (NEL, U+0085, among them), the line and paragraph
// separators and the bidi embeddings, overrides and isolates.
func hidden(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0xfeff
}

// unmention puts a zero-width joiner after every "@" of s.
func unmention(s string) string {
	return strings.ReplaceAll(s, "@", "@"+zwj)
}

// fenceText is content for a fenced block: each line spelled (tabs
// kept), and a line that would start with "/" indented by a space, so
// that even a fence GitLab's extractor does not recognise as code (it
// knows only exactly three backticks) holds no quick action.
func fenceText(content string) string {
	if content == "" {
		return content
	}
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	for i, l := range lines {
		l = spell(l, true)
		if strings.HasPrefix(l, "/") {
			l = " " + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n") + "\n"
}

// terminalLine is a line for a terminal: no escape sequence of the
// repository's reaches it (a name holding "\x1b]52;..." could write the
// clipboard, "\x1b[2J" clear the screen).
func terminalLine(s string) string { return spell(s, true) }
