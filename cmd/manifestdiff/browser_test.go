//go:build browser

package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/browser"
)

// The report of a real run, opened from disk in Chromium: it loads with
// no console error, exception or request, shows the JSON report's counts
// and its filter narrows the list.
func TestBrowserReportOfARun(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "manifest-diff.html")
	if r := f.run(t, nil, "--base", base, "--head", head, "-o", "html", "--output-file", file); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	j := f.run(t, nil, "--base", base, "--head", head, "-o", "json")
	if j.code != 0 {
		t.Fatalf("exit %d: %s", j.code, j.errOut)
	}
	b, err := browser.Start(context.Background(), 1280, 900)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.Open("file://"+file, `document.documentElement.hasAttribute("data-rendered")`)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := browser.CheckReport(p, []byte(j.out)); err != nil {
		t.Error(err)
	}
	for _, m := range p.Problems() {
		t.Errorf("page problem: %s", m)
	}
}
