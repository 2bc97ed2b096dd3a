package patch_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/patch"
)

// assertOnlyValuesChanged checks, independently of the package's own
// offset code, that every line that differs is a target's line and that
// it differs only from the target's column on.
func assertOnlyValuesChanged(t *testing.T, in, out []byte, changes []patch.Change) {
	t.Helper()
	inLines := strings.Split(string(in), "\n")
	outLines := strings.Split(string(out), "\n")
	if len(inLines) != len(outLines) {
		t.Fatalf("line count changed: %d -> %d", len(inLines), len(outLines))
	}
	firstCol := map[int]int{} // line -> smallest target column on it
	for _, c := range changes {
		if col, ok := firstCol[c.Target.Line]; !ok || c.Target.Column < col {
			firstCol[c.Target.Line] = c.Target.Column
		}
	}
	for i := range inLines {
		if inLines[i] == outLines[i] {
			continue
		}
		col, ok := firstCol[i+1]
		if !ok {
			t.Errorf("line %d changed but holds no target:\n-%q\n+%q", i+1, inLines[i], outLines[i])
			continue
		}
		prefix := commonPrefix(inLines[i], outLines[i])
		if utf8.RuneCountInString(prefix) < col-1 {
			t.Errorf("line %d changed before column %d:\n-%q\n+%q", i+1, col, inLines[i], outLines[i])
		}
	}
}

func commonPrefix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[:i]
}

// TestEditTouchesOnlyValueBytes checks the byte diff of a single edit: the
// bytes before and after the old value's token are identical, and the
// token is replaced by exactly the expected text.
func TestEditTouchesOnlyValueBytes(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		path     string
		new      string
		oldToken string // the old value as written, found at the target
		newToken string
	}{
		{"plain", "a:\n  b: 1.0.0 # c\n", "a.b", "1.0.1", "1.0.0", "1.0.1"},
		{"double", "a: {b: \"x\"}\n", "a.b", "y\"z", `"x"`, `"y\"z"`},
		{"single", "a: 'x' \n", "a", "it's", `'x'`, `'it''s'`},
		{"plain to quoted", "a: x\n", "a", "1.10", "x", `"1.10"`},
		{"crlf", "a: x\r\nb: y\r\n", "b", "zz", "y", "zz"},
		{"after non-ascii", "ä: {ö: ü, b: x}\n", "ä.b", "ÿÿ", "x", "ÿÿ"},
		{"anchor kept", "a: &x v1\n", "a", "v2", "v1", "v2"},
		{"tag kept", "a: !!str 1\n", "a", "2", "1", "2"},
		{"alias replaced", "a: &x v1\nb: *x\n", "b", "v2", "*x", "v2"},
		{"no final newline", "a: x", "a", "z", "x", "z"},
		{"lone cr", "a: x\rb: y\r", "b", "z", "y", "z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			tg, err := patch.Find(in, strings.Split(tc.path, "."))
			if err != nil {
				t.Fatal(err)
			}
			out, err := patch.Apply(in, []patch.Change{{Target: tg, New: tc.new}})
			if err != nil {
				t.Fatal(err)
			}
			// The old token is the last occurrence before the end of the
			// target's line: properties may precede it on that line.
			lineEnd := len(tc.in)
			if i := strings.IndexAny(tc.in[lineOffset(tc.in, tg.Line):], "\r\n"); i >= 0 {
				lineEnd = lineOffset(tc.in, tg.Line) + i
			}
			start := strings.LastIndex(tc.in[:lineEnd], tc.oldToken)
			if start < lineOffset(tc.in, tg.Line) {
				t.Fatalf("old token %q not on line %d", tc.oldToken, tg.Line)
			}
			end := start + len(tc.oldToken)
			want := tc.in[:start] + tc.newToken + tc.in[end:]
			if diff := cmp.Diff(want, string(out)); diff != "" {
				t.Errorf("bytes outside the value changed (-want +got):\n%s", diff)
			}
			p := len(commonPrefix(tc.in, string(out)))
			if p < start {
				t.Errorf("first changed byte %d is before the value at %d", p, start)
			}
			if !bytes.HasSuffix(out, in[end:]) {
				t.Errorf("bytes after the value changed")
			}
		})
	}
}

// lineOffset is a deliberately naive line-to-offset conversion (LF, CRLF
// and lone CR) for test inputs.
func lineOffset(s string, line int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexAny(s[off:], "\r\n")
		if i < 0 {
			return len(s)
		}
		off += i + 1
		if s[off-1] == '\r' && off < len(s) && s[off] == '\n' {
			off++
		}
	}
	return off
}
