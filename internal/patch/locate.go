package patch

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// locate finds the bytes of node n's value in data. It only accepts values
// written on one line: a multi-line scalar cannot be replaced without
// deciding how to re-indent or re-fold it, which is exactly the kind of
// reformatting this package exists to avoid.
func locate(data []byte, starts []int, n *yaml.Node, flow bool) (span, error) {
	off, err := offsetOf(data, starts, n.Line, n.Column)
	if err != nil {
		return span{}, err
	}
	start, tag := skipProperties(data, off)
	if n.Kind != yaml.AliasNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return span{}, fmt.Errorf("block scalar: %w", ErrUnsupported)
	}
	if start >= len(data) {
		return span{}, fmt.Errorf("empty value: %w", ErrUnsupported)
	}
	var end int
	switch {
	case n.Kind == yaml.AliasNode:
		end, err = aliasEnd(data, start, n.Value)
	case n.Style&yaml.DoubleQuotedStyle != 0:
		end, err = quotedEnd(data, start, '"')
	case n.Style&yaml.SingleQuotedStyle != 0:
		end, err = quotedEnd(data, start, '\'')
	case n.Value == "":
		// A plain empty value has no bytes to replace, and where the
		// parser puts its position depends on what follows.
		err = fmt.Errorf("empty value: %w", ErrUnsupported)
	default:
		end, err = plainEnd(data, start, flow, n.Value)
	}
	if err != nil {
		return span{}, err
	}
	return span{start: start, end: end, tag: tag}, nil
}

func aliasEnd(data []byte, start int, name string) (int, error) {
	end := start + 1 + len(name)
	if data[start] != '*' || end > len(data) || string(data[start+1:end]) != name {
		return 0, fmt.Errorf("alias *%s not found at its position: %w", name, ErrUnsupported)
	}
	return end, nil
}

// quotedEnd returns the offset just past the closing quote of the scalar
// opened at data[start].
func quotedEnd(data []byte, start int, quote byte) (int, error) {
	if data[start] != quote {
		return 0, fmt.Errorf("quoted value not found at its position: %w", ErrUnsupported)
	}
	for i := start + 1; i < len(data); i++ {
		switch {
		case breakLen(data, i) > 0:
			return 0, fmt.Errorf("multi-line quoted scalar: %w", ErrUnsupported)
		case quote == '"' && data[i] == '\\':
			// An escaped line break continues the scalar on the next line;
			// the break check above sees it on the next round.
			if i+1 < len(data) && breakLen(data, i+1) == 0 {
				i++
			}
		case data[i] == quote:
			if quote == '\'' && i+1 < len(data) && data[i+1] == '\'' {
				i++
				continue
			}
			return i + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated quoted scalar: %w", ErrUnsupported)
}

// plainEnd returns the end of the plain scalar starting at data[start] and
// checks it reads as value; a mismatch means the scalar continues on the
// following lines (the parser folds them into one value).
func plainEnd(data []byte, start int, flow bool, value string) (int, error) {
	end := start
	for i := start; i < len(data); i++ {
		c := data[i]
		if breakLen(data, i) > 0 ||
			c == '#' && i > start && isBlank(data[i-1]) ||
			c == ':' && (i+1 == len(data) || isBlank(data[i+1]) || breakLen(data, i+1) > 0 || flow && isFlowIndicator(data[i+1])) ||
			flow && isFlowIndicator(c) {
			break
		}
		if !isBlank(c) {
			end = i + 1
		}
	}
	if end == start {
		return 0, fmt.Errorf("empty value: %w", ErrUnsupported)
	}
	if string(data[start:end]) != value {
		return 0, fmt.Errorf("multi-line plain scalar: %w", ErrUnsupported)
	}
	return end, nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isFlowIndicator(c byte) bool {
	switch c {
	case ',', '[', ']', '{', '}':
		return true
	}
	return false
}
