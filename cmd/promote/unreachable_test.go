package main

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestUnreachableChartRepository is issue 9's fifth item: with the chart
// server down, apply says once per repository that it cannot be reached
// (host and error) with the --skip-chart-check hint, instead of one
// "chart version not found" per chart; a repository that answers still
// reports its missing versions as such.
func TestUnreachableChartRepository(t *testing.T) {
	t.Run("one repository down", func(t *testing.T) {
		f := newFleet(t)
		host := strings.TrimPrefix(f.Charts.URL, "http://")
		f.Charts.Close()
		before := f.snapshot(t)
		r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push")
		if r.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", r.code, r.errOut)
		}
		want := "promote: cannot reach chart repository " + f.Charts.URL + " (" + host + "): "
		if n := strings.Count(r.errOut, "cannot reach chart repository"); n != 1 || !strings.HasPrefix(r.errOut, want) {
			t.Errorf("want one line starting %q, got %d:\n%s", want, n, r.errOut)
		}
		for _, want := range []string{"connection refused", "--skip-chart-check"} {
			if !strings.Contains(r.errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.errOut)
			}
		}
		if strings.Contains(r.errOut, "not found") {
			t.Errorf("an unreachable repository reported as a missing chart:\n%s", r.errOut)
		}
		if after := f.snapshot(t); after != before {
			t.Errorf("something was written: %+v -> %+v", before, after)
		}
	})
	t.Run("one down, one missing a version", func(t *testing.T) {
		f := newFleet(t)
		down := httptest.NewServer(nil)
		down.Close()
		gw := strings.Replace(f.read(t, "argocd/preprod/app-gateway.yaml"), f.Charts.URL, down.URL, 1)
		f.commitFile(t, "argocd/preprod/app-gateway.yaml", gw, "gateway charts from a mirror")
		f.commitFile(t, "versions/qa.yaml", strings.Replace(f.read(t, "versions/qa.yaml"), `"1.4.0"`, `"1.5.0"`, 1), "unpublished api chart")
		r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod")
		if r.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", r.code, r.errOut)
		}
		for _, want := range []string{"cannot reach chart repository " + down.URL, "chart ledger-api version 1.5.0 not found in " + f.Charts.URL, "--skip-chart-check"} {
			if strings.Count(r.errOut, want) != 1 {
				t.Errorf("stderr should say %q once:\n%s", want, r.errOut)
			}
		}
	})
}
