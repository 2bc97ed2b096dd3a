package html

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	xhtml "golang.org/x/net/html"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// liveReport is the fixture with a live diff (manifestdiff --live) of
// staging, and of prod, whose cluster could not be reached.
func liveReport(t testing.TB) report.Report {
	t.Helper()
	r := fixtureReport(t)
	r.Base = "release/2.4" // drift is named after the base, not "main"
	changed := diff.Resources(parse(t, deployment("api", "shared:1"), "staging"), parse(t, deployment("api", "shared:2"), "staging"), nil, diff.Options{})[0]
	created := diff.Resources(nil, parse(t, deployment("worker", "w:1"), "staging"), nil, diff.Options{})[0]
	pruned := diff.Resources(parse(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old}\n", "staging"), nil, nil, diff.Options{})[0]
	drifted := diff.Resources(parse(t, deployment("web", "web:1"), "staging"), parse(t, deployment("web", "web:hotfix"), "staging"), nil, diff.Options{})[0]
	for i, a := range r.Apps {
		switch a.Env + "/" + a.Name {
		case "staging/api":
			r.Apps[i].Live = &report.Live{Changes: []report.LiveResource{{ResourceDiff: changed, Action: report.LiveUpdate}, {ResourceDiff: pruned, Action: report.LivePrune}}}
		case "staging/worker":
			r.Apps[i].Live = &report.Live{Changes: []report.LiveResource{{ResourceDiff: created, Action: report.LiveCreate}},
				Findings: []report.LiveFinding{{APIVersion: "v1", Kind: "Secret", Namespace: "staging", Name: "w", Reason: "forbidden", Message: "secrets is forbidden"}}}
		case "staging/web":
			r.Apps[i].Live = &report.Live{Drift: []report.LiveResource{{ResourceDiff: drifted, Action: report.LiveModified}}}
		case "staging/docs":
			r.Apps[i].Live = &report.Live{Error: "a kustomize source was not rendered"}
		case "staging/billing":
			r.Apps[i].Live = &report.Live{} // nothing to show
		}
	}
	r.LiveEnvs = []report.LiveEnv{
		{Env: "staging", Cluster: "qa-readonly (https://127.0.0.1:6443)", Findings: []report.LiveFinding{{APIVersion: "batch/v1", Kind: "CronJob", Reason: "forbidden", Message: "cannot list"}}},
		{Env: "prod", Cluster: "prod (https://10.0.0.1)", Error: "dial tcp 10.0.0.1:443: connect: connection refused"},
	}
	return r
}

func TestLiveGoldenStructure(t *testing.T) {
	got := outline(parseDoc(t, render(t, liveReport(t))))
	p := filepath.Join("testdata", "golden", "report-live.outline")
	if *update {
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

// The live part shows the summary's live counts, the unreachable env at
// the top, and every app with something to show, each resource with its
// action; the apps' own counts are untouched.
func TestLiveSection(t *testing.T) {
	r := liveReport(t)
	s := r.Summary()
	page := render(t, r)
	doc := parseDoc(t, page)
	got := map[string]int{}
	for _, n := range elements(doc, func(n *xhtml.Node) bool { _, ok := attr(n, "data-live"); return ok }) {
		k, _ := attr(n, "data-live")
		got[k], _ = strconv.Atoi(text(n))
	}
	want := map[string]int{"create": s.Live.Create, "update": s.Live.Update, "prune": s.Live.Prune, "remain": s.Live.Remain,
		"drift": s.Live.Drift, "findings": s.Live.Findings}
	if d := cmp.Diff(want, got); d != "" || s.Live.Create != 1 || s.Live.Drift != 1 {
		t.Errorf("live counts (-summary +page):\n%s", d)
	}
	alerts := elements(doc, func(n *xhtml.Node) bool { return hasClass(n, "failures") })
	if len(alerts) != 2 || !strings.Contains(text(alerts[0]), "live diff of prod failed: dial tcp") {
		t.Errorf("the unreachable env is not at the top: %d alerts", len(alerts))
	}
	ids := pageIDs(doc)
	for _, a := range r.Apps {
		if shown := ids[report.LiveAnchor(a)]; shown != report.LiveShown(a) {
			t.Errorf("%s/%s: live section %v, want %v", a.Env, a.Name, shown, report.LiveShown(a))
		}
	}
	var actions []string
	for _, n := range elements(doc, func(n *xhtml.Node) bool { return hasClass(n, "live") }) {
		for _, res := range elements(n, func(n *xhtml.Node) bool { return hasClass(n, "res") }) {
			st, _ := attr(res, "data-status")
			actions = append(actions, st+": "+text(elements(res, func(n *xhtml.Node) bool { return hasClass(n, "action") })[0]))
		}
	}
	if d := cmp.Diff([]string{"update: would change", "prune: would be pruned", "modified: drift: the cluster no longer matches release/2.4",
		"create: would be created"}, actions); d != "" {
		t.Errorf("live resources (-want +got):\n%s", d)
	}
	for _, s := range []string{"not compared: Secret staging/w: forbidden", "prune detection incomplete: CronJob: forbidden",
		"not compared: a kustomize source was not rendered"} {
		if !bytes.Contains(page, []byte(s)) {
			t.Errorf("the page does not say %q", s)
		}
	}
}

func pageIDs(doc *xhtml.Node) map[string]bool {
	ids := map[string]bool{}
	walk(doc, func(n *xhtml.Node) {
		if id, ok := attr(n, "id"); ok {
			ids[id] = true
		}
	})
	return ids
}
