package report

import (
	"bytes"
	"fmt"
	"html"
	"strings"
)

// longestRun returns the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// writeFence writes content in a fenced block longer than any backtick run
// inside it, so no content can close the block early; see fenceText.
func writeFence(b *bytes.Buffer, lang, content string) {
	content = fenceText(content)
	fence := strings.Repeat("`", max(3, longestRun(content, '`')+1))
	if content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	fmt.Fprintf(b, "%s%s\n%s%s\n\n", fence, lang, content, fence)
}

// code formats s as an inline code span that survives backticks in s; a
// newline would end the span's line, so it is spelled "\n" (see spell).
// Inside code, "@" is no mention.
func code(s string) string {
	s = spell(s, false)
	if s == "" {
		return "` `"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// escape makes s safe as plain markdown text: one line (see spell), HTML
// escaped, markdown punctuation backslash-escaped, no live mention.
func escape(s string) string {
	s = unmention(spell(s, false))
	var sb strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			sb.WriteString("&lt;")
		case '>':
			sb.WriteString("&gt;")
		case '&':
			sb.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '#', '~', '!':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// htmlText makes s safe as the text of an HTML element of the note (a
// summary): one line, HTML escaped, no live mention.
func htmlText(s string) string { return html.EscapeString(unmention(spell(s, false))) }

// htmlCode is s as the text of a <code> element of the note: one line,
// HTML escaped; inside code "@" is no mention.
func htmlCode(s string) string { return html.EscapeString(spell(s, false)) }

// capLines keeps at most MaxDiffLines lines of a diff.
func capLines(d string) string {
	n := strings.Count(d, "\n")
	if n <= MaxDiffLines {
		return d
	}
	i := 0
	for range MaxDiffLines {
		i += strings.IndexByte(d[i:], '\n') + 1
	}
	return d[:i] + fmt.Sprintf("# … %d more %s; see the JSON report\n", n-MaxDiffLines, plural(n-MaxDiffLines, "line", "lines"))
}
