package html

import (
	"strconv"
	"strings"
)

// Line kinds, also the CSS classes of the diff rows.
const (
	lineHunk    = "h" // @@ -a,b +c,d @@
	lineAdd     = "a"
	lineDel     = "d"
	lineContext = "c"
	lineMeta    = "m" // "\ No newline at end of file", or anything unexpected
)

// line is one row of a diff table: old and new line numbers ("" when the
// line has none on that side) and the text with its +/-/space prefix.
type line struct {
	Kind     string
	Old, New string
	Text     string
}

// diffLines turns unified hunks into numbered rows. The "---"/"+++"
// header is dropped: the resource title says what it names. A hunk header
// that does not parse leaves the numbers blank until the next one, so a
// malformed diff is still shown whole, never dropped.
func diffLines(d string) []line {
	d = strings.TrimSuffix(d, "\n")
	if d == "" {
		return nil
	}
	rows := strings.Split(d, "\n")
	for range 2 {
		if len(rows) > 0 && (strings.HasPrefix(rows[0], "--- ") || strings.HasPrefix(rows[0], "+++ ")) {
			rows = rows[1:]
		}
	}
	out := make([]line, 0, len(rows))
	old, cur, known := 0, 0, false
	for _, r := range rows {
		l := line{Kind: lineMeta, Text: r}
		switch {
		case strings.HasPrefix(r, "@@"):
			l.Kind = lineHunk
			old, cur, known = hunkStart(r)
		case !known || r == "":
			// numbers unknown, or an empty row no unified diff has
		case r[0] == '+':
			l.Kind, l.New = lineAdd, strconv.Itoa(cur)
			cur++
		case r[0] == '-':
			l.Kind, l.Old = lineDel, strconv.Itoa(old)
			old++
		case r[0] == ' ':
			l.Kind, l.Old, l.New = lineContext, strconv.Itoa(old), strconv.Itoa(cur)
			old++
			cur++
		}
		out = append(out, l)
	}
	return out
}

// hunkStart reads the first old and new line numbers of "@@ -a[,b] +c[,d] @@".
// An empty range ("-0,0" or "-5,0") names the line before it, so the next
// line on that side is its start plus one.
func hunkStart(h string) (old, cur int, ok bool) {
	f := strings.Fields(h)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, false
	}
	old, okA := rangeStart(f[1][1:])
	cur, okB := rangeStart(f[2][1:])
	return old, cur, okA && okB
}

func rangeStart(s string) (int, bool) {
	start, count, hasCount := strings.Cut(s, ",")
	n, err := strconv.Atoi(start)
	if err != nil || n < 0 || n > 1<<40 { // no file has more lines; keeps counting from overflowing
		return 0, false
	}
	if hasCount {
		c, err := strconv.Atoi(count)
		if err != nil || c < 0 {
			return 0, false
		}
		if c == 0 {
			return n + 1, true
		}
	}
	return n, true
}
