package diff

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// DefaultContext is the number of context lines, as in diff -u.
const DefaultContext = 3

// op is one line of an edit script.
type op struct {
	kind byte // ' ', '-' or '+'
	text string
}

// Unified returns a, b as a unified diff in the format of GNU `diff -u
// --label labelA --label labelB`, or "" when they are equal. context < 0
// means no context lines.
func Unified(a, b, labelA, labelB string, context int) string {
	if a == b {
		return ""
	}
	if context < 0 {
		context = 0
	}
	ops := lineOps(a, b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", labelA, labelB)
	for _, h := range hunks(ops, context) {
		writeHunk(&sb, ops, h)
	}
	return sb.String()
}

// lineOps runs go-diff in line mode. DiffTimeout 0 keeps the result minimal,
// which is what makes it match GNU diff.
func lineOps(a, b string) []op {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var ops []op
	for _, d := range diffs {
		kind := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			kind = '-'
		case diffmatchpatch.DiffInsert:
			kind = '+'
		}
		for _, l := range splitLines(d.Text) {
			ops = append(ops, op{kind, l})
		}
	}
	return ops
}

// splitLines splits after each newline, keeping it; a last line without one
// is kept as is so it can be flagged like diff does.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// span is a hunk's half-open range of ops.
type span struct{ start, end int }

// hunks groups changes whose separating run of equal lines is at most
// 2*context long, as diff does, so hunks never overlap.
func hunks(ops []op, context int) []span {
	var out []span
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		if n := len(out); n > 0 && start < out[n-1].end {
			start = out[n-1].end
		}
		j := i
		for {
			for j < len(ops) && ops[j].kind != ' ' {
				j++
			}
			k := j
			for k < len(ops) && ops[k].kind == ' ' {
				k++
			}
			if k == len(ops) || k-j > 2*context {
				break
			}
			j = k
		}
		end := min(j+context, len(ops))
		out = append(out, span{start, end})
		i = end
	}
	return out
}

func writeHunk(sb *strings.Builder, ops []op, h span) {
	aBefore, bBefore := 0, 0
	for _, o := range ops[:h.start] {
		aBefore, bBefore = advance(o, aBefore, bBefore)
	}
	aN, bN := 0, 0
	for _, o := range ops[h.start:h.end] {
		aN, bN = advance(o, aN, bN)
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(aBefore, aN), hunkRange(bBefore, bN))
	for _, o := range ops[h.start:h.end] {
		sb.WriteByte(o.kind)
		sb.WriteString(o.text)
		if !strings.HasSuffix(o.text, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func advance(o op, a, b int) (int, int) {
	switch o.kind {
	case '-':
		return a + 1, b
	case '+':
		return a, b + 1
	}
	return a + 1, b + 1
}

// hunkRange formats "start,count" as diff does: the count is left out when
// 1, and an empty range names the line before it.
func hunkRange(before, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}
