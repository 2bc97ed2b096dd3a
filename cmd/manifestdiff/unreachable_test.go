package main

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// An app whose chart repository cannot be reached is an error that says
// so (repository, host, the network error), never "chart version not
// found": the classification comes from internal/charts.
func TestUnreachableChartRepository(t *testing.T) {
	f := newFleet(t)
	base := gitRun(t, f.Dir, "rev-parse", "HEAD")
	down := httptest.NewServer(nil)
	down.Close()
	f.edit(t, "argocd/qa/app-gateway.yaml", f.Charts.URL, down.URL)
	head := f.commit(t, "gateway charts from a mirror that is down")

	r := f.run(t, nil, "--base", base, "--head", head, "--env", "qa", "--format", "json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.errOut)
	}
	doc := parseJSON(t, r.out)
	found := false
	for _, a := range doc.Apps {
		if a.Name != "ledger-gateway-qa" {
			continue
		}
		found = true
		want := "cannot reach chart repository " + down.URL + " (" + strings.TrimPrefix(down.URL, "http://") + "): "
		if !strings.Contains(a.Error, want) || !strings.Contains(a.Error, "connection refused") {
			t.Errorf("error %q, want it to contain %q and the network error", a.Error, want)
		}
		if strings.Contains(a.Error, "not found") {
			t.Errorf("an unreachable repository reported as a missing chart: %q", a.Error)
		}
	}
	t.Logf("report error: %s", appError(doc, "ledger-gateway-qa"))
	if !found {
		t.Fatalf("no ledger-gateway-qa app in the report:\n%s", r.out)
	}
}

func appError(doc jsonReport, name string) string {
	for _, a := range doc.Apps {
		if a.Name == name {
			return a.Error
		}
	}
	return ""
}
