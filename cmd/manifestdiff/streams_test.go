package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// --env narrows the report to the named environments; an unknown one is
// refused before anything renders.
func TestEnvFilter(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json", "--env", "prod", "--env", "qa")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
	}
	want := map[string]string{}
	for k, v := range scenarioStatuses {
		if !strings.HasPrefix(k, "preprod/") {
			want[k] = v
		}
	}
	if diff := cmp.Diff(want, parseJSON(t, r.out).statuses()); diff != "" {
		t.Errorf("app statuses (-want +got):\n%s", diff)
	}
	r = f.run(t, nil, "--base", base, "--head", head, "--env", "staging")
	if r.code != 1 || r.out != "" || !strings.Contains(r.errOut, `--env: unknown environment "staging"`) {
		t.Errorf("--env staging: exit %d, stdout %q, stderr %q", r.code, r.out, r.errOut)
	}
}

// A repeated --env (CI scripts build the list from variables) still lists
// and renders each app once.
func TestRepeatedEnvListedOnce(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json", "--env", "qa", "--env", "qa")
	doc := parseJSON(t, r.out)
	if r.code != 0 || len(doc.Apps) != 8 || doc.Summary.Apps != 8 {
		t.Errorf("--env qa --env qa: exit %d, %d apps listed (summary %d), want 8", r.code, len(doc.Apps), doc.Summary.Apps)
	}
}

// Chart repository credentials come from HELM_REPO_USERNAME and
// HELM_REPO_PASSWORD for the repositories HELM_REPO_URL names; without
// them (or without HELM_REPO_URL) every fetch fails and the run says so.
func TestChartRepoAuth(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	f.Charts.requireAuth("ci", "t0ken")
	creds := map[string]string{"HELM_REPO_USERNAME": "ci", "HELM_REPO_PASSWORD": "t0ken", "HELM_REPO_URL": f.Charts.URL}
	if r := f.run(t, creds, "--base", base, "--head", head, "-o", "json"); r.code != 0 {
		t.Errorf("with credentials: exit %d; stderr:\n%s", r.code, r.errOut)
	}
	delete(creds, "HELM_REPO_URL")
	r := f.run(t, creds, "--base", base, "--head", head, "-o", "json")
	if r.code != 1 || !strings.Contains(r.errOut, "warning: HELM_REPO_USERNAME/HELM_REPO_PASSWORD are set without HELM_REPO_URL") {
		t.Errorf("without HELM_REPO_URL: exit %d, want 1 and a warning; stderr:\n%s", r.code, r.errOut)
	}
	for _, a := range parseJSON(t, r.out).Apps {
		if a.Status == "error" && !strings.Contains(a.Error, "HELM_REPO_URL does not name this repository") {
			t.Errorf("%s: error %q does not say why the credentials were not sent", a.Name, a.Error)
		}
	}
	r = f.run(t, nil, "--base", base, "--head", head, "-o", "json")
	doc := parseJSON(t, r.out)
	// Eight apps render a chart in the scenario; the app-of-apps renders
	// only its directory and still diffs.
	if r.code != 1 || doc.Summary.ByStatus["error"] != 8 || doc.Summary.ByStatus["changed"] != 1 {
		t.Errorf("without credentials: exit %d, byStatus %v: want every chart render to fail", r.code, doc.Summary.ByStatus)
	}
	for _, a := range doc.Apps {
		if a.Status == "error" && !strings.Contains(a.Error, "answered 401") {
			t.Errorf("%s: error %q does not say the repository answered 401", a.Name, a.Error)
		}
	}
	if strings.Contains(r.out+r.errOut, "t0ken") {
		t.Error("the password reached the output")
	}
}

// On a terminal: progress on stderr, cleared at the end, and a coloured
// diff on stdout; neither when writing to a file.
func TestTerminalStreams(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	var out, errOut bytes.Buffer
	ios := &ioStreams{Out: &out, ErrOut: &errOut, OutTTY: true, ErrTTY: true}
	args := []string{"--repo", f.Dir, "--base", base, "--head", head, "--cache-dir", t.TempDir()}
	if code := exitCode(ios, runArgs(context.Background(), args, ios, func(string) string { return "" })); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	if e := errOut.String(); !strings.HasPrefix(e, "\rrendering 1/") || !strings.HasSuffix(e, "\r\x1b[K") {
		t.Errorf("progress on stderr = %q", e)
	}
	if !strings.Contains(out.String(), "\x1b[1m=== qa/ledger-node-a-worker-qa (changed)\x1b[0m") {
		t.Errorf("diff is not coloured:\n%s", out.String())
	}
	out.Reset()
	errOut.Reset()
	args = append(args, "--output-file", t.TempDir()+"/out.diff")
	if code := exitCode(ios, runArgs(context.Background(), args, ios, func(string) string { return "" })); code != 0 || out.Len() != 0 {
		t.Errorf("--output-file: exit %d, stdout %q", code, out.String())
	}
}
