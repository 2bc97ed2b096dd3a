package main

import (
	"bytes"
	"fmt"
	"html/template"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// oldNoteLines is the length of the note of the 12-node promote-prod
// merge request before the note told the story (measured on the same
// generated repository: 1,187 lines, 46,837 bytes, the hand edit at line
// 321). The note must now be at most a third of it.
const oldNoteLines = 1187

// promoteProd12 generates the 12-node fleet with the promote-prod merge
// request (scripts/gen_gitops_repo.py --scenario promote-prod: prod
// pinned to preprod's versions by hand, plus the one hand edit, LOG_LEVEL
// debug -> trace on preprod's node-beta frontend) and runs manifestdiff on
// HEAD~1..HEAD offline, in each format.
func promoteProd12(t *testing.T) map[string]string {
	t.Helper()
	out := t.TempDir()
	gen := filepath.Join("..", "..", "scripts", "gen_gitops_repo.py")
	if b, err := exec.Command("python3", gen, "--out", out, "--nodes", "12", "--git", "--scenario", "promote-prod").CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", gen, err, b)
	}
	f := &fleet{Dir: filepath.Join(out, "repo")}
	outs := map[string]string{}
	for _, format := range []string{"markdown", "html", "diff", "json"} {
		r := f.run(t, nil, "--base", "HEAD~1", "--head", "HEAD", "--charts-dir", filepath.Join(out, "charts"),
			"-o", format, "--report-url", "https://gitlab.example.com/g/p/-/jobs/1/artifacts/file/manifest-diff.html")
		if r.code != 0 {
			t.Fatalf("-o %s: exit %d, stderr:\n%s", format, r.code, r.errOut)
		}
		outs[format] = r.out
	}
	return outs
}

// The 12-node promote-prod note leads with the story: what moved, then the
// hand edit within its first 30 lines, the changes that only follow the
// version moves folded, the whole at most a third of its old length; the
// note, the HTML page and the terminal diff are golden.
func TestPromoteProdTellsTheStory(t *testing.T) {
	outs := promoteProd12(t)
	note := outs["markdown"]
	lines := strings.Split(note, "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "+") && strings.Contains(l, "LOG_LEVEL: trace") {
			at = i + 1
			break
		}
	}
	if at < 0 || at > 30 {
		t.Errorf("the hand edit is at line %d of the note, want within the first 30", at)
	}
	if n := strings.Count(note, "\n"); n*3 > oldNoteLines {
		t.Errorf("the note has %d lines, want at most a third of %d", n, oldNoteLines)
	}
	if !regexp.MustCompile(`(?m)^- \*\*prod\*\*: .*dlt-node\.backend chart 3\.0\.0 → 3\.1\.0, image v2\.0\.0 → v2\.1\.0 \(12 apps\)`).MatchString(note) {
		t.Errorf("no line of what moved in prod:\n%s", note)
	}
	if n := strings.Count(note, "<summary>Changes that follow the version moves"); n != 1 {
		t.Errorf("%d folded sections of changes that follow the moves, want 1", n)
	}
	term := outs["diff"]
	if i, j := strings.Index(term, "LOG_LEVEL: trace"), strings.Index(term, "=== changes that follow the version moves"); i < 0 || j < 0 || i > j {
		t.Errorf("terminal diff: the hand edit (at %d) must come before the changes that follow the moves (at %d)", i, j)
	}
	golden(t, "promote-prod-12.md", note)
	golden(t, "promote-prod-12.diff", term)
	golden(t, "promote-prod-12.html", outs["html"])
}

// Every change of the report model is in the HTML page: each changed
// resource of each app has its entry, and the entry holds every line of
// its diff, or points at the shared change that holds them.
func TestPromoteProdHTMLHasEveryChange(t *testing.T) {
	outs := promoteProd12(t)
	page := outs["html"]
	doc := parseJSON(t, outs["json"])
	checked := 0
	for _, a := range doc.Apps {
		app := report.App{Env: a.Env, Name: a.Name}
		for _, res := range a.Resources {
			anchor := report.ResourceAnchor(app, diff.ResourceDiff{Kind: res.Kind, Namespace: res.Namespace, Name: res.Name})
			entry := htmlEntry(page, anchor)
			if entry == "" {
				t.Errorf("%s/%s %s %s: no entry in the HTML page", a.Env, a.Name, res.Kind, res.Name)
				continue
			}
			if m := regexp.MustCompile(`data-group="([^"]+)"`).FindStringSubmatch(entry); m != nil {
				entry = htmlEntry(page, m[1]+"/diff")
				if entry == "" {
					t.Errorf("%s/%s %s %s: its shared change %s is not in the page", a.Env, a.Name, res.Kind, res.Name, m[1])
					continue
				}
				checked++
				continue // the shared diff is the first app's: its lines name that app
			}
			for _, l := range strings.Split(strings.TrimSuffix(res.Diff, "\n"), "\n") {
				if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++ ") && !strings.HasPrefix(l, "--- ") &&
					!strings.Contains(entry, "<td>"+escapeHTML(t, l)+"\n") {
					t.Errorf("%s/%s %s %s: line %q missing from its HTML entry", a.Env, a.Name, res.Kind, res.Name, l)
				}
			}
			checked++
		}
	}
	if want := doc.resources(); checked != want || want == 0 {
		t.Errorf("checked %d resources of %d", checked, want)
	}
}

// htmlEntry is the page's element with id anchor, up to its end.
func htmlEntry(page, anchor string) string {
	i := strings.Index(page, fmt.Sprintf(`id="%s"`, anchor))
	if i < 0 {
		return ""
	}
	j := strings.Index(page[i:], "</div>")
	if j < 0 {
		return page[i:]
	}
	return page[i : i+j]
}

// escapeHTML escapes s as the page's template does.
func escapeHTML(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := template.Must(template.New("").Parse("{{.}}")).Execute(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func (doc jsonReport) resources() int {
	n := 0
	for _, a := range doc.Apps {
		n += len(a.Resources)
	}
	return n
}
