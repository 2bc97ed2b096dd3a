package html

import (
	"encoding/json"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
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

// Whatever the strings of the model hold, the page keeps its structure:
// one script (the page's), no comment, no event handler, no element but
// the template's, and a data block that decodes.
func FuzzWriteKeepsStructure(f *testing.F) {
	for _, h := range hostile {
		f.Add("qa", "app", "Kind", h, h)
	}
	f.Add("a b", "x", "K", "@@ -1 +1 @@\n-</script>\n+<!--", "\x00\xff")
	f.Fuzz(func(t *testing.T, env, name, kind, value, errText string) {
		res := diff.ResourceDiff{Kind: kind, Namespace: value, Name: name, Status: diff.Changed,
			Diff: "@@ -1 +1 @@\n-" + value + "\n+" + errText + "\n", SecretKeys: []diff.SecretKeyChange{{Key: value, Status: errText}}}
		big := res
		big.Name += "-big"
		big.Diff = strings.Repeat("+"+value+"\n", lazyLines+1)
		r := report.Report{Base: value, Head: errText, Apps: []report.App{
			{Env: env, Name: name, Status: report.StatusChanged, Resources: []diff.ResourceDiff{res, big}},
			{Env: env, Name: name + "-e", Status: report.StatusError, Error: errText, NotRendered: value},
			{Env: value, Name: errText, Status: errText},
		}}
		doc := parseDoc(t, render(t, r))
		var scripts, data int
		walk(doc, func(n *xhtml.Node) {
			if n.Type == xhtml.CommentNode {
				t.Fatalf("comment %q", n.Data)
			}
			if n.Type != xhtml.ElementNode {
				return
			}
			if !templateTags[n.Data] {
				t.Fatalf("element <%s>", n.Data)
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") || a.Key == "src" || a.Key == "style" {
					t.Fatalf("<%s %s=%q>", n.Data, a.Key, a.Val)
				}
			}
			if n.DataAtom == atom.Script {
				if hasClass(n, "rows") {
					data++
					var rows [][4]string
					if err := json.Unmarshal([]byte(text(n)), &rows); err != nil || len(rows) <= lazyLines {
						t.Fatalf("data block: %d rows, %v", len(rows), err)
					}
				} else {
					scripts++
				}
			}
		})
		if scripts != 1 || data != 1 {
			t.Fatalf("%d scripts, %d data blocks", scripts, data)
		}
	})
}

// templateTags are the elements the page's template writes.
var templateTags = map[string]bool{}

func init() {
	for _, tag := range strings.Fields(`html head meta title style body header h1 h2 h3 code p a section table thead tbody tfoot
		tr th td span nav label input select option button output main details summary b div pre ul li script`) {
		templateTags[tag] = true
	}
}
