package gitlab

import (
	"strings"
	"testing"
)

// FuzzSplitMarkdown checks, for any input, that every page fits the limit,
// that no page leaves a code fence or <details> open, and that every
// top-level <details> line (up to 64 bytes) survives somewhere. The
// input is repeated reps times so small inputs still need splitting;
// seeds live in testdata/fuzz/FuzzSplitMarkdown.
func FuzzSplitMarkdown(f *testing.F) {
	f.Add(report(5, 3), uint16(0), uint8(1))
	f.Add("summary\n\n#### dev\n\n<details><summary>a</summary>\n\n```\n"+strings.Repeat("x", 3000)+"\n```\n</details>\n", uint16(100), uint8(0))
	f.Add("<details>\n~~~\n</details>\n", uint16(7), uint8(40))
	f.Fuzz(func(t *testing.T, md string, limit uint16, reps uint8) {
		md = strings.Repeat(md, 1+int(reps%64))
		lim := minSplitLimit + int(limit%4096)
		pages := SplitMarkdown(md, lim)
		if len(pages) == 0 {
			t.Fatal("no pages")
		}
		if len(md) <= lim {
			if len(pages) != 1 || pages[0] != md {
				t.Fatal("a fitting input was changed")
			}
			return
		}
		checkPages(t, md, lim, pages)
	})
}
