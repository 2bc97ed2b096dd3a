package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report over the page size is posted as numbered pages, each a valid
// piece of markdown, with the summary on page 1 and the whole report in
// --output; a rerun writes nothing; a later report that fits shrinks the
// notes back to one, edited in place, the other pages deleted.
func TestPostPagesAndShrink(t *testing.T) {
	const limit = 1500 // forces the scenario's ~9 kB report onto several pages
	p := newPostFleet(t, postProject)
	base, head := p.scenario(t)
	out := filepath.Join(t.TempDir(), "report.md")
	r := p.post(t, limit, "--base", base, "--head", head, "-o", "markdown", "--output-file", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.errOut)
	}
	whole, err := os.ReadFile(out)
	if err != nil || len(whole) <= 2*limit || strings.Contains(string(whole), "<!-- page ") {
		t.Fatalf("--output should hold the whole unsplit report (%d bytes, %v)", len(whole), err)
	}
	pages := p.ours()
	if len(pages) < 3 {
		t.Fatalf("%d pages for a %d byte report at %d per page", len(pages), len(whole), limit)
	}
	var all strings.Builder
	for i, n := range pages {
		checkPage(t, n.Body, i+1, len(pages), limit)
		all.WriteString(n.Body)
	}
	// page 1 leads with the story: the headline and what moved; the count
	// table follows the changes made by hand
	if first := pages[0].Body; !strings.Contains(first, "7 of 24 apps differ") || !strings.Contains(first, "#### What moved") {
		t.Errorf("page 1 lacks the summary:\n%s", first)
	}
	if !strings.Contains(all.String(), "| Environment |") {
		t.Error("no page has the table of apps by environment")
	}
	for _, app := range []string{"ledger-node-a-worker-qa", "ledger-node-a-api-preprod", "ledger-node-d-worker-preprod",
		"ledger-root-preprod", "ledger-node-g-api-prod", "ledger-node-g-worker-prod"} {
		// its own section, or its name in the folded list of apps whose
		// every change follows the version moves (ledger-root-preprod's
		// targetRevision)
		if !strings.Contains(all.String(), "<b>"+app+"</b>") && !strings.Contains(all.String(), "`"+app+"`") {
			t.Errorf("no page has the section of %s", app)
		}
	}
	p.noToken(t, r.out, r.errOut, string(whole))

	writes := p.gl.Writes()
	if r = p.post(t, limit, "--base", base, "--head", head); r.code != 0 || p.gl.Writes() != writes {
		t.Errorf("unchanged paged rerun: exit %d, %d writes\n%s", r.code, p.gl.Writes()-writes, r.errOut)
	}

	r = p.post(t, limit, "--base", head, "--head", head)
	got := p.ours()
	if r.code != 0 || len(got) != 1 || got[0].ID != pages[0].ID || !strings.Contains(got[0].Body, "No changes.") {
		t.Fatalf("shrink: exit %d, want page 1 (note %d) alone saying No changes; have %+v\n%s", r.code, pages[0].ID, got, r.errOut)
	}
	if n := p.gl.Calls("DELETE note"); n != len(pages)-1 {
		t.Errorf("deleted %d notes, want %d", n, len(pages)-1)
	}
	p.noToken(t, r.out, r.errOut)
}

// checkPage: numbered, within the limit (plus the two hidden lines), and
// closed: every code fence and <details> element ends on its own page.
func checkPage(t *testing.T, body string, n, m, limit int) {
	t.Helper()
	if want := fmt.Sprintf("<!-- manifestdiff -->\n<!-- page %d/%d -->\n", n, m); !strings.HasPrefix(body, want) {
		t.Errorf("page %d starts %.60q, want %q", n, body, want)
	}
	if len(body) > limit+64 {
		t.Errorf("page %d has %d bytes, limit %d", n, len(body), limit)
	}
	fences := 0
	for line := range strings.SplitSeq(body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fences++
		}
	}
	if fences%2 != 0 {
		t.Errorf("page %d leaves a code fence open", n)
	}
	if o, c := strings.Count(body, "<details>"), strings.Count(body, "</details>"); o != c {
		t.Errorf("page %d opens %d <details> and closes %d", n, o, c)
	}
}
