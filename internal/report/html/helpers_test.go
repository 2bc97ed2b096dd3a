package html

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Reading pages as a browser parses them (golang.org/x/net/html).

func parseDoc(t *testing.T, page []byte) *xhtml.Node {
	t.Helper()
	doc, err := xhtml.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func walk(n *xhtml.Node, f func(*xhtml.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attr(n *xhtml.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func text(n *xhtml.Node) string {
	var sb strings.Builder
	walk(n, func(c *xhtml.Node) {
		if c.Type == xhtml.TextNode {
			sb.WriteString(c.Data)
		}
	})
	return sb.String()
}

// elements returns the elements matching f, in document order.
func elements(doc *xhtml.Node, f func(*xhtml.Node) bool) []*xhtml.Node {
	var out []*xhtml.Node
	walk(doc, func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode && f(n) {
			out = append(out, n)
		}
	})
	return out
}

func hasClass(n *xhtml.Node, class string) bool {
	v, _ := attr(n, "class")
	return slices.Contains(strings.Fields(v), class)
}

// outline is the page's structure, one element a line: tag, id, classes,
// data attributes and the element's own text; style and script show as
// their size only, so the golden file is about structure.
func outline(doc *xhtml.Node) string {
	var sb strings.Builder
	var visit func(n *xhtml.Node, depth int)
	visit = func(n *xhtml.Node, depth int) {
		if n.Type == xhtml.ElementNode {
			sb.WriteString(strings.Repeat("  ", depth) + n.Data)
			for _, a := range n.Attr {
				switch {
				case a.Key == "id":
					sb.WriteString("#" + a.Val)
				case a.Key == "class":
					sb.WriteString("." + strings.ReplaceAll(a.Val, " ", "."))
				case a.Key == "content" && n.DataAtom == atom.Meta:
					sb.WriteString("[content]")
				default:
					sb.WriteString(fmt.Sprintf("[%s=%q]", a.Key, a.Val))
				}
			}
			var own []string
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == xhtml.TextNode && strings.TrimSpace(c.Data) != "" {
					own = append(own, strings.TrimSpace(c.Data))
				}
			}
			switch {
			case n.DataAtom == atom.Style || n.DataAtom == atom.Script:
				sb.WriteString(" (inline)")
			case len(own) > 0:
				sb.WriteString(" " + strconv.Quote(strings.Join(own, " ")))
			}
			sb.WriteString("\n")
			depth++
		}
		if n.DataAtom == atom.Style || n.DataAtom == atom.Script {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c, depth)
		}
	}
	visit(doc, 0)
	return sb.String()
}
