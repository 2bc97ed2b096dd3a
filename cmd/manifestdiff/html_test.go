package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	xhtml "golang.org/x/net/html"
)

// One --post run in a GitLab merge request pipeline writes the HTML
// report as the job's artifact and posts the note, whose apps and shared
// changes link to their anchors in that artifact.
func TestHTMLReportLinkedFromNote(t *testing.T) {
	p := newPostFleet(t, "42")
	projectDir := t.TempDir()
	p.env["CI_PROJECT_DIR"] = projectDir
	p.env["CI_JOB_URL"] = "https://gitlab.example.com/group/project/-/jobs/991"
	file := filepath.Join(projectDir, "review", "manifest diff.html")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	base, head := p.scenario(t)
	r := p.post(t, 0, "--base", base, "--head", head, "-o", "html", "--output-file", file)
	if r.code != 0 || r.out != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.out, r.errOut)
	}
	page, err := os.ReadFile(file)
	if err != nil || !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) {
		t.Fatalf("no HTML report in %s: %v", file, err)
	}
	ids := pageIDs(t, page)
	notes := p.ours()
	if len(notes) != 1 {
		t.Fatalf("%d notes", len(notes))
	}
	const url = "https://gitlab.example.com/group/project/-/jobs/991/artifacts/file/review/manifest%20diff.html"
	if !strings.Contains(notes[0].Body, `<a href="`+url+`">the HTML report</a>`) {
		t.Errorf("the note does not link to the report:\n%s", notes[0].Body)
	}
	links := regexp.MustCompile(`href="`+regexp.QuoteMeta(url)+`#([^"]+)"`).FindAllStringSubmatch(notes[0].Body, -1)
	linked := map[string]bool{}
	for _, l := range links {
		linked[l[1]] = true
		if !ids[l[1]] {
			t.Errorf("the note links to #%s, which the report lacks", l[1])
		}
	}
	for app, status := range scenarioStatuses {
		if want := status != "unchanged"; linked["app/"+app] != want {
			t.Errorf("%s (%s): linked from the note %v, want %v", app, status, linked["app/"+app], want)
		}
	}
}

// The HTML report's summary shows the JSON report's counts.
func TestHTMLCountsMatchJSON(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	h := f.run(t, nil, "--base", base, "--head", head, "-o", "html")
	j := f.run(t, nil, "--base", base, "--head", head, "-o", "json")
	if h.code != 0 || j.code != 0 {
		t.Fatalf("exit %d, %d: %s %s", h.code, j.code, h.errOut, j.errOut)
	}
	var doc struct {
		Summary struct {
			ByEnv []map[string]any `json:"byEnv"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(j.out), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, e := range doc.Summary.ByEnv {
		for k, v := range e {
			if n, ok := v.(float64); ok {
				want[e["env"].(string)+"/"+k] = int(n)
			}
		}
	}
	got := map[string]int{}
	root, err := xhtml.Parse(strings.NewReader(h.out))
	if err != nil {
		t.Fatal(err)
	}
	var visit func(n *xhtml.Node, env string)
	visit = func(n *xhtml.Node, env string) {
		if n.Type == xhtml.ElementNode {
			if v, ok := nodeAttr(n, "data-env"); ok && n.Data == "tr" && v != "" {
				env = v
			}
			if st, ok := nodeAttr(n, "data-status"); ok && n.Data == "td" && env != "" {
				got[env+"/"+st], _ = strconv.Atoi(n.FirstChild.Data)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c, env)
		}
	}
	visit(root, "")
	if len(want) != 15 {
		t.Fatalf("JSON summary: %v", want)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("HTML summary vs JSON (-json +html):\n%s", d)
	}
}

func pageIDs(t *testing.T, page []byte) map[string]bool {
	t.Helper()
	root, err := xhtml.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	var visit func(n *xhtml.Node)
	visit = func(n *xhtml.Node) {
		if id, ok := nodeAttr(n, "id"); ok {
			ids[id] = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	return ids
}

func nodeAttr(n *xhtml.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func TestReportURL(t *testing.T) {
	wd, _ := os.Getwd()
	job := "https://gitlab.example.com/g/p/-/jobs/7"
	ci := map[string]string{"CI_JOB_URL": job, "CI_PROJECT_DIR": wd}
	tests := []struct {
		name     string
		o        options
		env      map[string]string
		want     string
		wantNote string
	}{
		{name: "given", o: options{reportURL: "https://pages.example.com/r.html", output: "markdown"}, want: "https://pages.example.com/r.html"},
		{name: "derived from the job", o: options{post: true, output: "html", outputFile: "out/manifest-diff.html"}, env: ci,
			want: job + "/artifacts/file/out/manifest-diff.html"},
		{name: "absolute file in the project", o: options{post: true, output: "html", outputFile: filepath.Join(wd, "r.html")}, env: ci,
			want: job + "/artifacts/file/r.html"},
		{name: "outside the project", o: options{post: true, output: "html", outputFile: "/tmp/r.html"}, env: ci,
			wantNote: "outside CI_PROJECT_DIR"},
		{name: "no job URL", o: options{post: true, output: "html", outputFile: "r.html"}, env: map[string]string{},
			wantNote: "CI_JOB_URL is not set"},
		{name: "no project dir: relative to the job's directory", o: options{post: true, output: "html", outputFile: "./a/../r.html"},
			env: map[string]string{"CI_JOB_URL": job + "/"}, want: job + "/artifacts/file/r.html"},
		{name: "not posting", o: options{output: "html", outputFile: "r.html"}, env: ci},
		{name: "no HTML file", o: options{post: true, output: "html"}, env: ci},
		{name: "markdown artifact", o: options{post: true, output: "markdown", outputFile: "r.md"}, env: ci},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note := reportURL(&tt.o, func(k string) string { return tt.env[k] })
			if got != tt.want || !strings.Contains(note, tt.wantNote) || (tt.wantNote == "") != (note == "") {
				t.Errorf("got %q, note %q; want %q, note with %q", got, note, tt.want, tt.wantNote)
			}
		})
	}
}
