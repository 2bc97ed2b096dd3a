package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// --charts-dir makes the run fully offline: the chart repository is down
// and the report is the same as with it up.
func TestChartsDirOffline(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	online := f.run(t, nil, "--base", base, "--head", head, "-o", "json")

	dir := t.TempDir()
	for name, data := range chartFiles(t) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.Charts.Close()
	offline := f.run(t, nil, "--base", base, "--head", head, "-o", "json", "--charts-dir", dir)
	if online.code != 0 || offline.code != 0 {
		t.Fatalf("exit %d online, %d offline; stderr:\n%s%s", online.code, offline.code, online.errOut, offline.errOut)
	}
	if diff := cmp.Diff(online.out, offline.out); diff != "" {
		t.Errorf("offline report differs (-online +offline):\n%s", diff)
	}

	// A chart missing from the directory is a render error, not a fetch.
	if err := os.Remove(filepath.Join(dir, "ledger-api-1.4.0.tgz")); err != nil {
		t.Fatal(err)
	}
	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json", "--charts-dir", dir)
	if got := parseJSON(t, r.out).statuses()["preprod/ledger-node-a-api-preprod"]; r.code != 1 || got != "error" {
		t.Errorf("without ledger-api-1.4.0.tgz: exit %d, app %s; want 1, error", r.code, got)
	}
}

// Charts fetched once stay in --cache-dir: a later run with the chart
// repository down still renders everything it needs.
func TestChartCacheAcrossRuns(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	cache := t.TempDir()
	first := f.run(t, nil, "--base", base, "--head", head, "-o", "json", "--cache-dir", cache)
	if first.code != 0 || f.Charts.requests() == 0 {
		t.Fatalf("first run: exit %d after %d chart requests; stderr:\n%s", first.code, f.Charts.requests(), first.errOut)
	}
	f.Charts.Close()
	second := f.run(t, nil, "--base", base, "--head", head, "-o", "json", "--cache-dir", cache)
	if second.code != 0 {
		t.Fatalf("second run: exit %d; stderr:\n%s", second.code, second.errOut)
	}
	if diff := cmp.Diff(first.out, second.out); diff != "" {
		t.Errorf("cached run differs (-first +second):\n%s", diff)
	}
}
