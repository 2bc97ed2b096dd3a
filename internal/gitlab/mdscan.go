package gitlab

import (
	"strings"
)

// mdState is what is open after some markdown lines: a fenced code block
// (CommonMark rules: up to three spaces, three or more ` or ~, closed by a
// run of the same character at least as long) and <details> elements
// outside fences. Enough to cut a report without breaking its rendering.
type mdState struct {
	fenceChar byte
	fenceLen  int // 0: not in a fence
	depth     int // open <details>
}

func (s mdState) closed() bool { return s.fenceLen == 0 && s.depth == 0 }

// line advances the state over one line (newline optional).
func (s *mdState) line(l string) {
	l = strings.TrimRight(l, "\r\n")
	if s.fenceLen > 0 {
		if c, n, rest := fenceRun(l); c == s.fenceChar && n >= s.fenceLen && strings.Trim(rest, " \t") == "" {
			s.fenceLen = 0
		}
		return
	}
	if c, n, rest := fenceRun(l); n >= 3 && !(c == '`' && strings.Contains(rest, "`")) {
		s.fenceChar, s.fenceLen = c, n
		return
	}
	s.depth = detailsDepth(l, s.depth)
}

// fenceRun returns the run of ` or ~ that starts l after at most three
// spaces, its length and what follows it.
func fenceRun(l string) (byte, int, string) {
	i := 0
	for i < 3 && i < len(l) && l[i] == ' ' {
		i++
	}
	if i >= len(l) || (l[i] != '`' && l[i] != '~') {
		return 0, 0, ""
	}
	c, j := l[i], i
	for j < len(l) && l[j] == c {
		j++
	}
	return c, j - i, l[j:]
}

// detailsDepth applies the <details> opens and closes of one line, in
// order; a stray close at depth 0 is ignored, as browsers do. The tag
// name ends at ">", "/" or HTML's whitespace (tab, line feed, form feed,
// carriage return, space), as the HTML tokenizer ends it.
func detailsDepth(l string, depth int) int {
	low := strings.ToLower(l)
	for {
		i := strings.Index(low, "details")
		if i < 0 {
			return depth
		}
		end := i + len("details")
		switch {
		case i >= 2 && low[i-2:i] == "</" && strings.HasPrefix(low[end:], ">"):
			depth = max(depth-1, 0)
		case i >= 1 && low[i-1] == '<' && (end == len(low) || strings.IndexByte("> \t\n\f\r/", low[end]) >= 0):
			depth++
		}
		low = low[end:]
	}
}

// isBoundary reports whether a top-level line starts a new block: an ATX
// heading or a <details> element.
func isBoundary(l string) bool {
	return headingText(l) != "" || strings.HasPrefix(strings.ToLower(strings.TrimLeft(l, " ")), "<details")
}

// headingText returns l without its newline if it is an ATX heading.
func headingText(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t' && t[n] != '\n' && t[n] != '\r') {
		return ""
	}
	return strings.TrimRight(l, "\r\n")
}

const (
	detailsClose = "</details>\n"
	truncNotice  = "\n_[truncated: too long for one GitLab note; see the full report]_\n\n"
)

// closersLen is the size of closers(s, ...) without building it.
func closersLen(s mdState, needNL bool) int {
	n := len(truncNotice) + s.depth*len(detailsClose)
	if needNL {
		n++
	}
	if s.fenceLen > 0 {
		n += s.fenceLen + 1
	}
	return n
}

// closers ends a cut: newline, fence close, notice, </details> per level.
func closers(s mdState, needNL bool, notice string) string {
	var b strings.Builder
	if needNL {
		b.WriteByte('\n')
	}
	if s.fenceLen > 0 {
		b.WriteString(strings.Repeat(string(s.fenceChar), s.fenceLen) + "\n")
	}
	b.WriteString(notice)
	b.WriteString(strings.Repeat(detailsClose, s.depth))
	return b.String()
}
