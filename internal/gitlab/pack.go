package gitlab

import (
	"strings"
	"unicode/utf8"
)

// pack fills pages in order. The summary is one unit, so it is never
// split and, being first, is always on page 1. A heading block moves to a
// new page rather than end one without the block it introduces.
func pack(blocks []block, summary int, budget, firstBudget int) []string {
	units := blocks[summary:]
	if summary > 0 {
		var b strings.Builder
		for _, s := range blocks[:summary] {
			b.WriteString(s.text)
		}
		units = append([]block{{text: b.String()}}, units...)
	}
	p := packer{budget: budget, room: firstBudget}
	for i, u := range units {
		need := len(u.text)
		if u.heading != "" && i+1 < len(units) {
			need += len(units[i+1].text)
		}
		// A block right after its heading stays there even when it must be
		// truncated, so the heading is not left alone, as long as at least
		// half a page is left for it.
		stay := p.afterHeading && u.heading == "" && p.room >= p.budget/2
		if p.cur.Len() > 0 && need > p.room && !stay {
			p.newPage()
		}
		p.add(u)
		p.afterHeading = u.heading != ""
	}
	p.newPage()
	return p.pages
}

type packer struct {
	pages   []string
	cur     strings.Builder
	budget  int
	room    int    // bytes left on the current page
	section string // the heading of the section being filled
	// afterHeading: the last unit placed was a heading block.
	afterHeading bool
}

func (p *packer) newPage() {
	if p.cur.Len() > 0 {
		p.pages = append(p.pages, p.cur.String())
	}
	p.cur.Reset()
	p.room = p.budget
}

func (p *packer) add(u block) {
	if p.cur.Len() == 0 && len(p.pages) > 0 && u.heading == "" && p.section != "" {
		// Reserve at most a quarter of the page, so a long heading
		// cannot crowd out the block itself.
		if cont := p.section + " (continued)\n\n"; len(cont) <= p.budget/4 {
			p.write(cont)
		}
	}
	text := u.text
	if len(text) > p.room {
		text = truncate(text, p.room)
	}
	p.write(text)
	if u.heading != "" {
		var st mdState
		st.line(u.heading)
		// Repeat only a heading that opens nothing, or the page breaks.
		if p.section = ""; st.closed() {
			p.section = u.heading
		}
	}
}

func (p *packer) write(s string) {
	p.cur.WriteString(s)
	p.room -= len(s)
}

// truncate cuts text, a closed block too large for room bytes, at the
// last place where the cut plus what closes its open fence and <details>
// fits, preferring line ends and cutting inside a line only where that
// leaves the markdown structure unchanged.
func truncate(text string, room int) string {
	var st mdState
	best, bestSt := 0, mdState{}
	pos := 0
	for pos < len(text) {
		if pos+closersLen(st, false) <= room {
			best, bestSt = pos, st
		}
		line, _, _ := strings.Cut(text[pos:], "\n")
		if len(line) < len(text)-pos {
			line = text[pos : pos+len(line)+1]
		}
		if pos+len(line) > room {
			break // no later cut can fit
		}
		st.line(line)
		pos += len(line)
	}
	cut := text[:best]
	if part := partialLine(text[best:], bestSt, room-best); part != "" {
		return cut + part + closers(bestSt, true, truncNotice)
	}
	return cut + closers(bestSt, false, truncNotice)
}

// partialLine returns the longest start of the next line that fits in
// room together with the closers and does not change the state (a partial
// line must not open or close anything the closers do not know about).
func partialLine(rest string, st mdState, room int) string {
	line, _, _ := strings.Cut(rest, "\n")
	k := min(room-closersLen(st, true), len(line))
	for k > 0 && k < len(line) && !utf8.RuneStart(line[k]) {
		k--
	}
	if k <= 0 || k == len(line) {
		return ""
	}
	after := st
	after.line(line[:k])
	if after != st {
		return ""
	}
	return line[:k]
}
