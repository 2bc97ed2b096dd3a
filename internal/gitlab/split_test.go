package gitlab

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// A second, regexp-based reading of the structure, so the tests do not
// just repeat mdscan.go.
var (
	reFence   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")
	reDetails = regexp.MustCompile(`(?i)<details[\s>/]|<details$|</details>`)
	reHeader  = regexp.MustCompile(`(?m)^\*\*Page \d+ of \d+\*\*\n\n`)
)

// structure returns whether a fence is left open, the final <details>
// depth, and the top-level <details> lines.
func structure(md string) (fenceOpen bool, depth int, top []string) {
	var fence string
	for _, l := range strings.Split(md, "\n") {
		if fence != "" {
			if m := reFence.FindStringSubmatch(l); m != nil && m[1][0] == fence[0] &&
				len(m[1]) >= len(fence) && strings.TrimSpace(m[2]) == "" {
				fence = ""
			}
			continue
		}
		if m := reFence.FindStringSubmatch(l); m != nil && !(m[1][0] == '`' && strings.Contains(m[2], "`")) {
			fence = m[1]
			continue
		}
		if depth == 0 && strings.HasPrefix(strings.ToLower(strings.TrimLeft(l, " ")), "<details") {
			top = append(top, l)
		}
		for _, tag := range reDetails.FindAllString(l, -1) {
			if strings.HasPrefix(tag, "</") {
				depth = max(depth-1, 0)
			} else {
				depth++
			}
		}
	}
	return fence != "", depth, top
}

// checkPages asserts the properties every split must have.
func checkPages(t *testing.T, md string, limit int, pages []string) {
	t.Helper()
	var all strings.Builder
	for i, p := range pages {
		if len(p) > max(limit, minSplitLimit) && len(pages) > 1 {
			t.Errorf("page %d has %d bytes, limit %d", i+1, len(p), limit)
		}
		if !utf8.ValidString(p) && utf8.ValidString(md) {
			t.Errorf("page %d is not valid utf-8", i+1)
		}
		if len(pages) > 1 {
			if fence, depth, _ := structure(p); fence || depth != 0 {
				t.Errorf("page %d leaves open: fence %v, details %d\n%s", i+1, fence, depth, p)
			}
		}
		all.WriteString(reHeader.ReplaceAllString(p, ""))
	}
	// Headers appear in input order, so one forward scan finds them all.
	_, _, top := structure(md)
	rest := all.String()
	for _, h := range top {
		if len(h) > 64 {
			continue
		}
		i := strings.Index(rest, h)
		if i < 0 {
			t.Fatalf("resource header %q lost (or out of order)", h)
		}
		rest = rest[i+len(h):]
	}
}

// report builds a note shaped like internal/report's markdown.
func report(apps, diffLines int) string {
	var b strings.Builder
	b.WriteString(testMarker + "\n### Manifest diff `a` → `b`\n\n3 of 3 apps differ.\n\n")
	b.WriteString("| Environment | Changed |\n|---|---:|\n| dev | 3 |\n\n#### dev\n\n")
	for i := range apps {
		fmt.Fprintf(&b, "<details><summary><b>app-%d</b> — changed</summary>\n\n**changed** Deployment `app-%d`\n\n```diff\n", i, i)
		for j := range diffLines {
			fmt.Fprintf(&b, "-  replicas: %d\n+  replicas: %d\n", j, j+1)
		}
		b.WriteString("```\n\n</details>\n\n")
	}
	return b.String()
}

func TestSplitMarkdownFits(t *testing.T) {
	md := report(2, 3)
	if got := SplitMarkdown(md, len(md)); len(got) != 1 || got[0] != md {
		t.Fatalf("a fitting report changed: %q", got)
	}
}

func TestSplitMarkdownReport(t *testing.T) {
	md := report(12, 10)
	limit := 1500
	pages := SplitMarkdown(md, limit)
	checkPages(t, md, limit, pages)
	if len(pages) < 3 {
		t.Fatalf("%d pages", len(pages))
	}
	first := fmt.Sprintf("%s\n**Page 1 of %d**\n\n### Manifest diff", testMarker, len(pages))
	if !strings.HasPrefix(pages[0], first) || !strings.Contains(pages[0], "| dev | 3 |") {
		t.Errorf("page 1 lacks marker, header or summary:\n%s", pages[0])
	}
	for i, p := range pages[1:] {
		want := fmt.Sprintf("**Page %d of %d**\n\n#### dev (continued)\n\n<details>", i+2, len(pages))
		if !strings.HasPrefix(p, want) {
			t.Errorf("page %d starts %q", i+2, p[:min(len(p), 80)])
		}
	}
	joined := strings.Join(pages, "")
	for i := range 12 {
		if n := strings.Count(joined, fmt.Sprintf("<b>app-%d</b>", i)); n != 1 {
			t.Errorf("app-%d appears %d times", i, n)
		}
	}
	if strings.Contains(joined, "truncated") {
		t.Error("truncated although every block fits a page")
	}
}

func TestSplitMarkdownSummaryStaysWhole(t *testing.T) {
	summary := "### Manifest diff\n\n" + strings.Repeat("| env | 1 |\n", 78) + "\n"
	md := summary + "#### dev\n\n" + strings.Repeat("<details><summary>x</summary>\n\nbody\n\n</details>\n\n", 40)
	pages := SplitMarkdown(md, 1024)
	checkPages(t, md, 1024, pages)
	if !strings.Contains(pages[0], summary) {
		t.Errorf("summary split:\n%s", pages[0])
	}
	if !strings.Contains(pages[1], "#### dev\n\n<details>") {
		t.Errorf("section heading not kept with its first block:\n%s", pages[1])
	}
}

func TestSplitMarkdownTruncatesOversizedBlock(t *testing.T) {
	md := "summary\n\n#### dev\n\n" + report(1, 2000)[strings.Index(report(1, 1), "<details>"):] +
		"<details><summary>small</summary>\n\nok\n\n</details>\n"
	limit := 4096
	pages := SplitMarkdown(md, limit)
	checkPages(t, md, limit, pages)
	big := pages[1]
	if len(pages) != 3 || !strings.Contains(big, "#### dev\n\n<details>") || !strings.Contains(big, "truncated") || !strings.HasSuffix(big, "```\n"+truncNotice+"</details>\n") {
		t.Fatalf("%d pages; first ends %q", len(pages), big[max(0, len(big)-200):])
	}
	if !strings.Contains(pages[2], "<summary>small</summary>") {
		t.Errorf("block after the truncated one lost:\n%s", pages[2])
	}
}

func TestSplitMarkdownNeverCutsInsideFenceOrDetails(t *testing.T) {
	inner := "<details><summary>outer</summary>\n\n```diff\n#### not a heading\n<details>\n</details>\n```\n\n" +
		"<details><summary>nested</summary>\n\n#### nested heading\n\n</details>\n\n</details>\n\n"
	md := "summary\n\n" + strings.Repeat(inner, 10)
	pages := SplitMarkdown(md, 600)
	checkPages(t, md, 600, pages)
	for i, p := range pages {
		if n, m := strings.Count(p, "<summary>outer</summary>"), strings.Count(p, "#### nested heading"); n != m {
			t.Errorf("page %d: %d blocks but %d nested headings", i+1, n, m)
		}
	}
}

func TestSplitMarkdownClosesAndCutsLines(t *testing.T) {
	cases := []struct {
		name, md string
		want     string
	}{
		{"unclosed fence at the end", "summary\n\n<details><summary>a</summary>\n\n~~~~\n" + strings.Repeat("x\n", 1000),
			"~~~~\n" + truncNotice + "</details>\n"},
		{"one huge line in a fence", "summary\n\n<details><summary>a</summary>\n\n```\n" + strings.Repeat("é", 5000) + "\n```\n</details>\n",
			"é\n```\n" + truncNotice + "</details>\n"},
	}
	for _, tc := range cases {
		pages := SplitMarkdown(tc.md, 1024)
		checkPages(t, tc.md, 1024, pages)
		if last := pages[len(pages)-1]; !strings.HasSuffix(last, tc.want) {
			t.Errorf("%s: ends %q", tc.name, last[max(0, len(last)-150):])
		}
	}
}

func TestSplitMarkdownRaisesTinyLimit(t *testing.T) {
	md := strings.Repeat("#### h\n\ntext\n\n", 100)
	pages := SplitMarkdown(md, 10)
	checkPages(t, md, minSplitLimit, pages)
	if got := strings.Count(strings.Join(pages, ""), "#### h\n"); got != 100 {
		t.Errorf("%d headings kept, want 100", got)
	}
}

// A <details> tag name ends where the HTML tokenizer ends it: at ">",
// "/" or any of HTML's whitespace, form feed and carriage return
// included (a fuzz-found input opened one with "<details\f").
func TestDetailsDepthTagNameEnds(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int
	}{
		{"<details>", 1}, {"<details open>", 1}, {"<details\topen>", 1}, {"<details\fopen>", 1},
		{"<details\ropen>", 1}, {"<details/>", 1}, {"<details", 1}, {"<DETAILS>", 1},
		{"<detailsx>", 0}, {"<details-x>", 0}, {"<details0>", 0}, {"</details>", 0},
		{"<details></details>", 0}, {"<details><details>", 2},
	} {
		if got := detailsDepth(tc.line, 0); got != tc.want {
			t.Errorf("detailsDepth(%q, 0) = %d, want %d", tc.line, got, tc.want)
		}
		// the tests' own reading (reDetails) must agree
		if _, depth, _ := structure(tc.line); depth != tc.want {
			t.Errorf("structure(%q) depth = %d, want %d", tc.line, depth, tc.want)
		}
	}
}
