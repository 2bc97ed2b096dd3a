package html

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

func TestDiffLines(t *testing.T) {
	tests := []struct {
		name string
		diff string
		want []line
	}{
		{"empty", "", nil},
		{"header dropped, numbers from the hunk", "--- a/x\n+++ b/x\n@@ -10,3 +10,3 @@\n ctx\n-old\n+new\n ctx2\n", []line{
			{lineHunk, "", "", "@@ -10,3 +10,3 @@"},
			{lineContext, "10", "10", " ctx"},
			{lineDel, "11", "", "-old"},
			{lineAdd, "", "11", "+new"},
			{lineContext, "12", "12", " ctx2"},
		}},
		{"added file: empty old range", "@@ -0,0 +1,2 @@\n+a\n+b\n", []line{
			{lineHunk, "", "", "@@ -0,0 +1,2 @@"},
			{lineAdd, "", "1", "+a"},
			{lineAdd, "", "2", "+b"},
		}},
		{"insertion after line 5, counts of one left out", "@@ -5,0 +6 @@\n+x\n@@ -9 +10 @@\n-y\n+z\n", []line{
			{lineHunk, "", "", "@@ -5,0 +6 @@"},
			{lineAdd, "", "6", "+x"},
			{lineHunk, "", "", "@@ -9 +10 @@"},
			{lineDel, "9", "", "-y"},
			{lineAdd, "", "10", "+z"},
		}},
		{"no newline marker", "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n", []line{
			{lineHunk, "", "", "@@ -1 +1 @@"},
			{lineDel, "1", "", "-a"},
			{lineMeta, "", "", `\ No newline at end of file`},
			{lineAdd, "", "1", "+b"},
		}},
		{"malformed hunk header: shown, unnumbered", "@@ -x +1 @@\n-a\n+b\n@@ -3 +3 @@\n c\n", []line{
			{lineHunk, "", "", "@@ -x +1 @@"},
			{lineMeta, "", "", "-a"},
			{lineMeta, "", "", "+b"},
			{lineHunk, "", "", "@@ -3 +3 @@"},
			{lineContext, "3", "3", " c"},
		}},
		{"text before any hunk", "# note\n@@ -1 +1 @@\n-a\n+b", []line{
			{lineMeta, "", "", "# note"},
			{lineHunk, "", "", "@@ -1 +1 @@"},
			{lineDel, "1", "", "-a"},
			{lineAdd, "", "1", "+b"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, diffLines(tt.diff)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// The numbers agree with the texts diffed: every numbered line is that
// line of its side.
func TestDiffLinesNumbersMatchSides(t *testing.T) {
	var a, b strings.Builder
	for i := 1; i <= 60; i++ {
		a.WriteString("line " + strconv.Itoa(i) + "\n")
		switch {
		case i%17 == 0:
			b.WriteString("changed " + strconv.Itoa(i) + "\n")
		case i%23 == 0:
		default:
			b.WriteString("line " + strconv.Itoa(i) + "\n")
		}
		if i%29 == 0 {
			b.WriteString("inserted\n")
		}
	}
	old, cur := strings.Split(a.String(), "\n"), strings.Split(b.String(), "\n")
	lines := diffLines(diff.Unified(a.String(), b.String(), "a", "b", 3))
	checked := 0
	for _, l := range lines {
		if l.Old != "" {
			n, _ := strconv.Atoi(l.Old)
			if old[n-1] != l.Text[1:] {
				t.Errorf("old line %d is %q, row says %q", n, old[n-1], l.Text)
			}
			checked++
		}
		if l.New != "" {
			n, _ := strconv.Atoi(l.New)
			if cur[n-1] != l.Text[1:] {
				t.Errorf("new line %d is %q, row says %q", n, cur[n-1], l.Text)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d numbers checked", checked)
	}
}

// Any input is shown whole: one row per input line but the header.
func FuzzDiffLines(f *testing.F) {
	f.Add("--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
	f.Add("@@ -0,0 +1 @@\n+x")
	f.Add("@@ -99999999999999999999 +1 @@\n-a\n")
	f.Add("@@@@\n\n\\\n")
	f.Fuzz(func(t *testing.T, d string) {
		lines := diffLines(d)
		for _, l := range lines {
			if strings.Contains(l.Text, "\n") {
				t.Fatalf("row %q holds a newline", l.Text)
			}
			for _, n := range []string{l.Old, l.New} {
				if v, err := strconv.Atoi(n); n != "" && (err != nil || v < 0) {
					t.Fatalf("line number %q", n)
				}
			}
		}
		var texts []string
		for _, l := range lines {
			texts = append(texts, l.Text)
		}
		if got := strings.Join(texts, "\n"); !strings.HasSuffix(strings.TrimSuffix(d, "\n"), got) {
			t.Fatalf("rows %q are not the input %q less its header", got, d)
		}
	})
}
