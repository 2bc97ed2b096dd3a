package gitlab

import (
	"fmt"
	"strings"
)

// minSplitLimit is the smallest page size SplitMarkdown works with; a
// smaller limit is raised to it (no real note limit is that small).
const minSplitLimit = 512

// block is one top-level piece of a report: the summary, or a part
// starting at a heading or a <details> element and running to the next.
type block struct {
	text    string
	heading string // the heading line if the block starts with one
}

// SplitMarkdown splits a markdown report into pages of at most limit
// bytes (so at most limit characters), for GitLab's note limit. It cuts
// only between top-level blocks (headings and <details> elements), never
// inside a code fence or a <details> element; a heading stays with the
// block after it. Page 1 starts with the summary: everything before the
// first <details> element except the heading introducing it. A block too
// large for a page on its own is truncated, with its fences and
// <details> closed and a note saying so. Each page starts with "Page N of
// M" (after any leading hidden html comment lines, which stay on top of
// page 1); a page after the first that begins inside a section repeats
// that section's heading marked "(continued)". A report that fits is
// returned unchanged as the only page.
func SplitMarkdown(md string, limit int) []string {
	if len(md) <= limit {
		return []string{md}
	}
	limit = max(limit, minSplitLimit)
	hidden, rest := hiddenPrefix(md, limit/4)
	blocks, summary := splitBlocks(rest)
	budget := limit - len(pageHeader(len(md)+1, len(md)+1))
	bodies := pack(blocks, summary, budget, budget-len(hidden))
	pages := make([]string, len(bodies))
	for i, b := range bodies {
		if len(bodies) > 1 {
			b = pageHeader(i+1, len(bodies)) + b
		}
		if i == 0 {
			b = hidden + b
		}
		pages[i] = b
	}
	return pages
}

func pageHeader(n, m int) string { return fmt.Sprintf("**Page %d of %d**\n\n", n, m) }

// hiddenPrefix takes the leading one-line html comments (such as the note
// marker) off md, so they stay on top of page 1, above the page header.
func hiddenPrefix(md string, maxLen int) (string, string) {
	end := 0
	for end < len(md) {
		line, _, ok := strings.Cut(md[end:], "\n")
		t := strings.TrimSpace(line)
		var st mdState
		st.line(t)
		if !ok || !strings.HasPrefix(t, "<!--") || !strings.HasSuffix(t, "-->") || !st.closed() || end+len(line)+1 > maxLen {
			break
		}
		end += len(line) + 1
	}
	return md[:end], md[end:]
}

// splitBlocks cuts md at top-level boundaries and says how many leading
// blocks form the summary. Blocks are closed: an element left open at the
// end of md is closed so every page stays well formed.
func splitBlocks(md string) ([]block, int) {
	var blocks []block
	var st mdState
	start := 0
	for pos := 0; pos < len(md); {
		line, _, _ := strings.Cut(md[pos:], "\n")
		if len(line) < len(md)-pos {
			line = md[pos : pos+len(line)+1]
		}
		if st.closed() && pos > start && isBoundary(line) {
			blocks = append(blocks, newBlock(md[start:pos]))
			start = pos
		}
		st.line(line)
		pos += len(line)
	}
	if start < len(md) {
		text := md[start:]
		if !st.closed() {
			text += closers(st, !strings.HasSuffix(text, "\n"), "")
		}
		blocks = append(blocks, newBlock(text))
	}
	return blocks, summaryLen(blocks)
}

func newBlock(text string) block {
	first, _, _ := strings.Cut(text, "\n")
	return block{text: text, heading: headingText(first)}
}

// summaryLen counts the blocks before the first <details>, minus the
// heading that introduces it; without any <details>, only the text before
// the first heading.
func summaryLen(blocks []block) int {
	for i, b := range blocks {
		if b.heading == "" && isBoundary(b.text) {
			if i > 0 && blocks[i-1].heading != "" {
				return i - 1
			}
			return i
		}
	}
	if len(blocks) > 0 && !isBoundary(blocks[0].text) {
		return 1
	}
	return 0
}
