package html

import (
	"encoding/json"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// Hostile values in a manifest, and in every other string of the model,
// stay text: parsed as a browser parses it, the page has the structure of
// any other report (one style, one script, no other element), and each
// value reads back as the text it was.
func TestHostileValuesStayText(t *testing.T) {
	r := hostileReport(t)
	page := render(t, r)
	doc := parseDoc(t, page)
	counts := map[string]int{}
	walk(doc, func(n *xhtml.Node) {
		switch n.Type {
		case xhtml.ElementNode:
			counts[n.Data]++
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") || a.Key == "src" || a.Key == "style" {
					t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
				}
				if a.Key == "href" && !strings.HasPrefix(a.Val, "#") {
					t.Errorf("link %q", a.Val)
				}
			}
		case xhtml.CommentNode:
			t.Errorf("comment %q in the page", n.Data)
		}
	})
	for _, tag := range []string{"style", "title"} {
		if counts[tag] != 1 {
			t.Errorf("%d <%s> elements, want 1", counts[tag], tag)
		}
	}
	if counts["script"] != 2 {
		t.Errorf("%d <script> elements, want the page's script and the big diff's rows", counts["script"])
	}
	for _, tag := range []string{"img", "b"} {
		// <b> holds app names in summaries, never a value's markup
		want := 0
		if tag == "b" {
			want = 3 // the three app sections
		}
		if counts[tag] != want {
			t.Errorf("%d <%s> elements, want %d", counts[tag], tag, want)
		}
	}
	scripts := elements(doc, func(n *xhtml.Node) bool { return n.DataAtom == atom.Script })
	if got := text(scripts[len(scripts)-1]); got != script {
		t.Error("the script element holds more than the page's script")
	}
	// The big diff's rows are JSON in a data block, which no value can end
	// early: decoded, they are every row of the diff, hostile text included.
	data := elements(doc, func(n *xhtml.Node) bool { return n.DataAtom == atom.Script && hasClass(n, "rows") })
	if len(data) != 1 {
		t.Fatalf("%d data blocks, want 1", len(data))
	}
	if typ, _ := attr(data[0], "type"); typ != "application/json" {
		t.Errorf("data block type %q", typ)
	}
	var rows [][4]string
	if err := json.Unmarshal([]byte(text(data[0])), &rows); err != nil {
		t.Fatalf("data block: %v", err)
	}
	var big diff.ResourceDiff
	for _, rd := range r.Apps[0].Resources {
		if rd.Name == "big" {
			big = rd
		}
	}
	want := diffLines(big.Diff)
	if len(rows) != len(want) || len(rows) <= lazyLines {
		t.Fatalf("%d rows in the data block, want %d", len(rows), len(want))
	}
	var joined strings.Builder
	for i, l := range want {
		if rows[i] != [4]string{l.Kind, l.Old, l.New, l.Text} {
			t.Fatalf("row %d is %q, want %+v", i, rows[i], l)
		}
		joined.WriteString(rows[i][3] + "\n")
	}
	for _, h := range []string{"</script>", "<!--", "<img src=x onerror="} {
		if !strings.Contains(joined.String(), h) {
			t.Errorf("the big diff's rows lost %q", h)
		}
	}
	body := text(elements(doc, func(n *xhtml.Node) bool { return n.DataAtom == atom.Body })[0])
	title := text(elements(doc, func(n *xhtml.Node) bool { return n.DataAtom == atom.Title })[0])
	for _, h := range hostile {
		if !strings.Contains(body, h) {
			t.Errorf("%q does not read back as text", h)
		}
	}
	if !strings.Contains(title, hostile[0]) || !strings.Contains(title, hostile[2]) {
		t.Errorf("title %q lost the revisions' text", title)
	}
	// the raw sequences never appear unescaped in the bytes either
	for _, raw := range []string{"</script><script>", "<!-- unterminated", "<img", "onerror=\"", "</style><style>"} {
		if n := strings.Count(string(page), raw); n > 0 {
			t.Errorf("%q appears %d times in the page's bytes", raw, n)
		}
	}
}
