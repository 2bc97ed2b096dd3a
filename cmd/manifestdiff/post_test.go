package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/report"
)

// Acceptance: three --post runs on one merge request (a diff whose first
// write is answered 429, the same diff, no diff) leave exactly one note of
// ours, saying "No changes" at the end, other users' notes untouched; the
// second run writes nothing; the token is in no output.
func TestPostStickyNote(t *testing.T) {
	p := newPostFleet(t, "42")
	p.gl.AddNote(postProject, postIID, "reviewer", "please check prod", false)
	p.gl.AddNote(postProject, postIID, "reviewer", "approved this merge request", true)
	foreign := p.others()
	base, head := p.scenario(t)
	p.gl.FailNext(http.MethodPost, "notes", http.StatusTooManyRequests, http.Header{"Retry-After": {"1"}})

	out := filepath.Join(t.TempDir(), "report.json")
	r := p.post(t, 0, "--base", base, "--head", head, "-o", "json", "--output-file", out)
	if r.code != 0 {
		t.Fatalf("diff run: exit %d\n%s", r.code, r.errOut)
	}
	if n := p.gl.Calls("POST notes"); n != 2 {
		t.Errorf("POST notes %d times, want the 429 and its retry", n)
	}
	artifact, err := os.ReadFile(out)
	if err != nil || !json.Valid(artifact) || r.out != "" {
		t.Errorf("-o json --output-file: file valid JSON %v (%v), stdout %q", json.Valid(artifact), err, r.out)
	}
	notes := p.ours()
	if len(notes) != 1 || !strings.Contains(notes[0].Body, "### Manifest diff") || strings.Contains(notes[0].Body, "No changes") {
		t.Fatalf("after the diff run, want one markdown note with the diff; have %+v", notes)
	}
	p.noToken(t, r.out, r.errOut, string(artifact))

	writes := p.gl.Writes()
	r = p.post(t, 0, "--base", base, "--head", head)
	if r.code != 0 {
		t.Fatalf("same diff run: exit %d\n%s", r.code, r.errOut)
	}
	if n := p.gl.Writes() - writes; n != 0 {
		t.Errorf("same diff wrote %d times: %v", n, p.gl.AllCalls())
	}
	if !strings.Contains(r.out, "---") {
		t.Errorf("stdout lost the default diff report:\n%s", r.out)
	}
	if got := p.ours(); len(got) != 1 || got[0] != notes[0] {
		t.Errorf("same diff changed the note:\n%+v\nwant\n%+v", got, notes)
	}
	p.noToken(t, r.out, r.errOut)

	r = p.post(t, 0, "--base", head, "--head", head, "-o", "markdown")
	if r.code != 0 {
		t.Fatalf("no diff run: exit %d\n%s", r.code, r.errOut)
	}
	final := p.ours()
	if len(final) != 1 || final[0].ID != notes[0].ID || !strings.Contains(final[0].Body, "No changes.") {
		t.Fatalf("after the no diff run, want note %d edited to say No changes; have %+v", notes[0].ID, final)
	}
	// The note is the markdown report stdout got, plus the page line.
	want := strings.Replace(r.out, report.Marker+"\n", report.Marker+"\n<!-- page 1/1 -->\n", 1)
	if d := cmp.Diff(strings.TrimSpace(want), strings.TrimSpace(final[0].Body)); d != "" {
		t.Errorf("note is not the markdown report (-stdout +note):\n%s", d)
	}
	if final[0].Author.Username != "project_42_bot" {
		t.Errorf("our note is by %q", final[0].Author.Username)
	}
	if d := cmp.Diff(foreign, p.others()); d != "" {
		t.Errorf("other notes touched (-before +after):\n%s", d)
	}
	p.noToken(t, r.out, r.errOut)
}
