package html

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/gitops-promote/gitops-promote/internal/report"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestGoldenStructure(t *testing.T) {
	got := outline(parseDoc(t, render(t, fixtureReport(t))))
	p := filepath.Join("testdata", "golden", "report.outline")
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("page structure differs (-want +got):\n%s", d)
	}
}

// Every app has its anchor, each anchor once; every link of the page
// resolves inside it.
func TestAnchors(t *testing.T) {
	t.Run("report", func(t *testing.T) { checkAnchors(t, fixtureReport(t)) })
	t.Run("with a live diff", func(t *testing.T) { checkAnchors(t, liveReport(t)) })
}

func checkAnchors(t *testing.T, r report.Report) {
	doc := parseDoc(t, render(t, r))
	ids := map[string]int{}
	for _, n := range elements(doc, func(n *xhtml.Node) bool { _, ok := attr(n, "id"); return ok }) {
		id, _ := attr(n, "id")
		ids[id]++
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %q used %d times", id, n)
		}
	}
	for _, a := range r.Apps {
		if ids[report.AppAnchor(a)] != 1 {
			t.Errorf("no anchor %q for %s/%s", report.AppAnchor(a), a.Env, a.Name)
		}
	}
	shared, _ := r.SharedChanges()
	if len(shared) == 0 {
		t.Fatal("fixture has no shared change")
	}
	for i := range shared {
		if ids[report.SharedAnchor(i)] != 1 {
			t.Errorf("no anchor for shared change %d", i)
		}
	}
	links := elements(doc, func(n *xhtml.Node) bool { _, ok := attr(n, "href"); return ok })
	if len(links) < len(r.Apps) {
		t.Fatalf("only %d links", len(links))
	}
	for _, n := range links {
		href, _ := attr(n, "href")
		if !strings.HasPrefix(href, "#") || ids[href[1:]] != 1 {
			t.Errorf("link %q does not point at one element of the page", href)
		}
	}
}

// The summary shows the numbers of report.Summary, which the JSON report
// has too, per environment and in total.
func TestSummaryCounts(t *testing.T) {
	r := fixtureReport(t)
	s := r.Summary()
	doc := parseDoc(t, render(t, r))
	got := map[string]map[string]int{}
	for _, row := range elements(doc, func(n *xhtml.Node) bool { _, ok := attr(n, "data-env"); return n.DataAtom == atom.Tr && ok }) {
		env, _ := attr(row, "data-env")
		got[env] = map[string]int{}
		for _, td := range elements(row, func(n *xhtml.Node) bool { return n.DataAtom == atom.Td }) {
			st, _ := attr(td, "data-status")
			n, err := strconv.Atoi(text(td))
			if err != nil {
				t.Fatalf("count %q of %s/%s: %v", text(td), env, st, err)
			}
			got[env][st] = n
		}
	}
	want := map[string]map[string]int{}
	add := func(env string, c report.Counts, extra map[string]int) {
		want[env] = map[string]int{"added": c.Added, "removed": c.Removed, "changed": c.Changed, "unchanged": c.Unchanged, "error": c.Error}
		for k, v := range extra {
			want[env][k] = v
		}
	}
	add("", s.ByStatus, map[string]int{"drift": 1})
	for _, e := range s.ByEnv {
		drift := 0
		if e.Env == "prod" {
			drift = 1
		}
		add(e.Env, e.Counts, map[string]int{"drift": drift})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("summary table (-want +got):\n%s", d)
	}
	for field, n := range map[string]int{"added": s.Resources.Added, "removed": s.Resources.Removed, "changed": s.Resources.Changed} {
		spans := elements(doc, func(x *xhtml.Node) bool { v, _ := attr(x, "data-resources"); return v == field })
		if len(spans) != 1 || text(spans[0]) != strconv.Itoa(n) {
			t.Errorf("resources %s: want %d", field, n)
		}
	}
	sections := elements(doc, func(n *xhtml.Node) bool { return hasClass(n, "app") })
	listed := elements(doc, func(n *xhtml.Node) bool { return n.DataAtom == atom.Li })
	if len(sections)+len(listed) != s.Apps {
		t.Errorf("%d app sections + %d listed unchanged apps, want %d apps", len(sections), len(listed), s.Apps)
	}
}

// Nothing outside the file: no src, no link element, no URL but page
// anchors, no CSS import or url(); the CSP allows nothing else, and its
// hashes are those of the inline style and script.
func TestSelfContained(t *testing.T) {
	t.Run("report", func(t *testing.T) { checkSelfContained(t, fixtureReport(t)) })
	t.Run("with a live diff", func(t *testing.T) { checkSelfContained(t, liveReport(t)) })
}

func checkSelfContained(t *testing.T, r report.Report) {
	page := render(t, r)
	doc := parseDoc(t, page)
	var styles, scripts []string
	walk(doc, func(n *xhtml.Node) {
		if n.Type != xhtml.ElementNode {
			return
		}
		switch n.DataAtom {
		case atom.Link, atom.Iframe, atom.Img, atom.Object, atom.Embed, atom.Base, atom.Form:
			t.Errorf("element <%s> in a self-contained page", n.Data)
		case atom.Style:
			styles = append(styles, text(n))
		case atom.Script:
			if typ, ok := attr(n, "type"); ok {
				if typ != "application/json" {
					t.Errorf("<script type=%q>", typ)
				}
				return // a data block, not run
			}
			scripts = append(scripts, text(n))
		}
		for _, a := range n.Attr {
			if a.Key == "src" || a.Key == "srcset" || a.Key == "action" || strings.HasPrefix(a.Key, "on") || a.Key == "style" {
				t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
			}
			if a.Key == "href" && !strings.HasPrefix(a.Val, "#") {
				t.Errorf("external link %q", a.Val)
			}
		}
	})
	if len(styles) != 1 || len(scripts) != 1 {
		t.Fatalf("%d style and %d script elements, want one each", len(styles), len(scripts))
	}
	if regexp.MustCompile(`(?i)url\(|@import|https?:`).MatchString(styles[0]) {
		t.Error("the style loads something")
	}
	if regexp.MustCompile(`(?i)fetch\(|XMLHttpRequest|https?:|import\(|\.src\s*=|WebSocket|sendBeacon`).MatchString(scripts[0]) {
		t.Error("the script may load something")
	}
	metas := elements(doc, func(n *xhtml.Node) bool { v, _ := attr(n, "http-equiv"); return v == "Content-Security-Policy" })
	if len(metas) != 1 {
		t.Fatal("no Content-Security-Policy")
	}
	policy, _ := attr(metas[0], "content")
	for _, want := range []string{"default-src 'none'", "style-src " + sha(styles[0]) + ";", "script-src " + sha(scripts[0]) + ";"} {
		if !strings.Contains(policy, want) {
			t.Errorf("policy %q lacks %q", policy, want)
		}
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// Secret values never reach the page, in any form a leak could take
// (plain, base64, decoded, SHA-256): it is built from the report model,
// whose diffs are redacted, and the placeholders show.
func TestNoSecretValue(t *testing.T) {
	page := string(render(t, fixtureReport(t)))
	if !strings.Contains(page, "&lt;redacted: changed&gt;") {
		t.Fatal("no redaction placeholder: fixture not exercised")
	}
	var forms []string
	add := func(v string) {
		sum := sha256.Sum256([]byte(v))
		forms = append(forms, v, base64.StdEncoding.EncodeToString([]byte(v)), hex.EncodeToString(sum[:]))
	}
	for _, f := range []string{"base.yaml", "head.yaml", "head-again.yaml"} {
		for _, r := range parse(t, fixtureFile(t, f), "web") {
			if meta, ok := r.Object["metadata"].(map[string]any); ok {
				if ann, ok := meta["annotations"].(map[string]any); ok && ann["kubectl.kubernetes.io/last-applied-configuration"] != nil {
					add(fmt.Sprint(ann["kubectl.kubernetes.io/last-applied-configuration"]))
				}
			}
			if r.Kind != "Secret" {
				continue
			}
			for _, field := range []string{"data", "stringData"} {
				m, _ := r.Object[field].(map[string]any)
				for _, v := range m {
					add(fmt.Sprint(v))
					if dec, err := base64.StdEncoding.DecodeString(fmt.Sprint(v)); err == nil {
						add(string(dec))
					}
				}
			}
		}
	}
	if len(forms) < 30 {
		t.Fatalf("only %d secret forms: fixtures changed?", len(forms))
	}
	for _, s := range forms {
		if strings.Contains(page, s) || strings.Contains(page, template.HTMLEscapeString(s)) {
			t.Errorf("secret value %q leaked", s)
		}
	}
}

func TestDeterministic(t *testing.T) {
	if a, b := render(t, fixtureReport(t)), render(t, fixtureReport(t)); !bytes.Equal(a, b) {
		t.Error("two renders of one report differ")
	}
}

// The page holds at most rowBudget drawn rows: past it, and for any diff
// longer than lazyLines, rows are data drawn on opening. Every row is in
// the page one way or the other.
func TestRowBudget(t *testing.T) {
	r := report.Report{Base: "a", Head: "b"}
	total := 0
	for i := range 60 {
		name := fmt.Sprintf("app-%02d", i)
		var base, head strings.Builder
		for j := range 150 { // values of its own: nothing to group
			fmt.Fprintf(&base, "  k%d: old-%d\n", j, i*1000+j)
			fmt.Fprintf(&head, "  k%d: new-%d\n", j, i*1000+j)
		}
		a := appOf(t, "prod", name, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n"+base.String(),
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n"+head.String())
		total += len(diffLines(a.Resources[0].Diff))
		r.Apps = append(r.Apps, a)
	}
	if total <= rowBudget {
		t.Fatalf("only %d rows: the budget is not reached", total)
	}
	doc := parseDoc(t, render(t, r))
	drawn := len(elements(doc, func(n *xhtml.Node) bool { return n.DataAtom == atom.Tr && hasClass(n.Parent.Parent, "diff") }))
	lazy := 0
	for _, n := range elements(doc, func(n *xhtml.Node) bool { return n.DataAtom == atom.Script && hasClass(n, "rows") }) {
		var rows [][4]string
		if err := json.Unmarshal([]byte(text(n)), &rows); err != nil {
			t.Fatal(err)
		}
		lazy += len(rows)
	}
	if drawn > rowBudget || lazy == 0 || drawn+lazy != total {
		t.Errorf("%d rows drawn, %d as data; want at most %d drawn and all %d in the page", drawn, lazy, rowBudget, total)
	}
}
