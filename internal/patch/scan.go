package patch

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// lineStarts returns the byte offset of every line start as the YAML parser
// counts lines: CRLF, CR, LF, NEL, LS and PS all end a line. A UTF-8 BOM is
// not counted in the first line's columns, so line 1 starts after it.
func lineStarts(data []byte) []int {
	first := 0
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		first = 3
	}
	starts := make([]int, 1, bytes.Count(data, []byte("\n"))+2)
	starts[0] = first
	for i := first; i < len(data); {
		// Only CR, LF and the lead bytes of NEL (C2 85) and LS/PS
		// (E2 80 A8/A9) can start a break.
		if c := data[i]; c != '\r' && c != '\n' && c != 0xC2 && c != 0xE2 {
			i++
			continue
		}
		if n := breakLen(data, i); n > 0 {
			i += n
			starts = append(starts, i)
			continue
		}
		i++
	}
	return starts
}

// breakLen returns the length of the line break at data[i], or 0.
func breakLen(data []byte, i int) int {
	switch {
	case data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n':
		return 2
	case data[i] == '\r' || data[i] == '\n':
		return 1
	case bytes.HasPrefix(data[i:], []byte("\xC2\x85")):
		return 2
	case bytes.HasPrefix(data[i:], []byte("\xE2\x80\xA8")), bytes.HasPrefix(data[i:], []byte("\xE2\x80\xA9")):
		return 3
	}
	return 0
}

// offsetOf converts a 1-based line and character column to a byte offset.
func offsetOf(data []byte, starts []int, line, col int) (int, error) {
	if line < 1 || line > len(starts) || col < 1 {
		return 0, fmt.Errorf("line %d column %d is outside the file: %w", line, col, ErrNotFound)
	}
	off := starts[line-1]
	for c := 1; c < col; c++ {
		if off >= len(data) || breakLen(data, off) > 0 {
			return 0, fmt.Errorf("line %d has no column %d: %w", line, col, ErrNotFound)
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off, nil
}

// span is where a node's value text sits in the file: the bytes an edit
// replaces. The node's properties (anchor, tag) stay in front of it.
type span struct {
	start, end int    // the value's bytes
	tag        string // the node's tag property as written, if any
}

// skipProperties moves past the anchor and tag written before a value (the
// parser reports a node's position at its first property) and the blanks,
// line breaks and comments that may follow them.
func skipProperties(data []byte, off int) (int, string) {
	tag := ""
	for off < len(data) && (data[off] == '&' || data[off] == '!') {
		start := off
		if data[off] == '!' && off+1 < len(data) && data[off+1] == '<' {
			for off < len(data) && data[off] != '>' {
				off++
			}
			off++
		} else {
			off++
			for off < len(data) && !isSep(data, off) && !(data[start] == '&' && data[off] == ':') {
				off++
			}
		}
		off = min(off, len(data))
		if data[start] == '!' {
			tag = string(data[start:off])
		}
		off = skipBlank(data, off)
	}
	return off, tag
}

// isSep reports whether data[i] ends an anchor or tag property. The parser
// also ends anchors at a colon, which the caller checks.
func isSep(data []byte, i int) bool {
	switch data[i] {
	case ' ', '\t', ',', '[', ']', '{', '}':
		return true
	}
	return breakLen(data, i) > 0
}

// skipBlank skips spaces, tabs, line breaks and comments.
func skipBlank(data []byte, off int) int {
	for off < len(data) {
		switch {
		case data[off] == ' ' || data[off] == '\t':
			off++
		case breakLen(data, off) > 0:
			off += breakLen(data, off)
		case data[off] == '#':
			for off < len(data) && breakLen(data, off) == 0 {
				off++
			}
		default:
			return off
		}
	}
	return off
}
