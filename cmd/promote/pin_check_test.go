package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/promote"
)

func TestPinChartVersionRepinsSources(t *testing.T) {
	f := newFleet(t)
	r := f.run(t, nil, "pin", "--env", "qa", "ledger-node.worker.imageTag=v3.3.0", "ledger-node.worker.chartVersion=0.9.2", "gateway.chartVersion=2.1.0")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	numstat := gitRun(t, f.Dir, "diff", "--numstat", "HEAD~1", "HEAD")
	if numstat != "1\t1\tversions/qa.yaml" {
		t.Errorf("numstat = %q, want only the image tag line", numstat)
	}
	subject := gitRun(t, f.Dir, "log", "-1", "--format=%s")
	if subject != "chore(qa): pin ledger-node.worker.imageTag [skip ci]" {
		t.Errorf("subject = %q", subject)
	}
	r = f.run(t, nil, "pin", "--env", "preprod", "ledger-node.api.chartVersion=1.4.0")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	numstat = gitRun(t, f.Dir, "diff", "--numstat", "HEAD~1", "HEAD")
	if numstat != "1\t1\targocd/preprod/appset-nodes.yaml\n1\t1\tversions/preprod.yaml" {
		t.Errorf("numstat = %q, want the versions line and the api targetRevision", numstat)
	}
}

func TestCheck(t *testing.T) {
	f := newFleet(t)
	r := f.run(t, nil, "check")
	if r.code != 0 || !strings.Contains(r.out, "ok: qa, preprod, prod: no findings") {
		t.Fatalf("clean fleet: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	// seed one problem of each kind check knows about
	os.WriteFile(filepath.Join(f.Dir, "versions/prod.yaml"), []byte("ledger-node: [\n"), 0o644)
	gw := "argocd/preprod/app-gateway.yaml"
	os.WriteFile(filepath.Join(f.Dir, gw), []byte(strings.Replace(f.read(t, gw), "'2.0.3'", "'2.0.2'", 1)), 0o644)
	qa := "versions/qa.yaml"
	os.WriteFile(filepath.Join(f.Dir, qa), []byte(strings.Replace(f.read(t, qa), "imageTag: v3.2.0", "imageTag: main", 1)), 0o644)
	nodes := "argocd/qa/appset-nodes.yaml"
	os.WriteFile(filepath.Join(f.Dir, nodes), []byte(strings.Replace(f.read(t, nodes), "chart: ledger-worker", "chart: ledger-cron", 1)), 0o644)

	r = f.run(t, nil, "check", "--output", "json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.out)
	}
	var got struct {
		OK       bool
		Findings []struct{ Env, Rule, File, Component string }
	}
	if err := json.Unmarshal([]byte(r.out), &got); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, fd := range got.Findings {
		seen[fd.Env+" "+fd.Rule+" "+fd.Component] = true
	}
	for _, want := range []string{
		"prod versions-unreadable ",
		"preprod revision-mismatch gateway",
		"qa unpinned-version ledger-node.worker",
		"qa source-without-component ",
		"qa component-without-source ledger-node.worker",
	} {
		if !seen[want] {
			t.Errorf("missing finding %q in %v", want, got.Findings)
		}
	}
	if got.OK {
		t.Errorf("ok = true with findings")
	}
}

func TestInitDraftsAValidConfig(t *testing.T) {
	f := newFleet(t)
	want, _ := config.Load(f.Dir)
	os.Remove(filepath.Join(f.Dir, config.FileName))
	r := f.run(t, nil, "init")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	got, err := config.Load(f.Dir)
	if err != nil {
		t.Fatalf("drafted config: %v", err)
	}
	if strings.Join(got.Environments, ",") != "qa,preprod,prod" || got.RepoURL != want.RepoURL {
		t.Errorf("draft envs %v repoURL %q", got.Environments, got.RepoURL)
	}
	pairs := func(c *config.Config) map[string]string {
		m := map[string]string{}
		for _, comp := range c.Components {
			m[comp.Key] = comp.Chart
		}
		return m
	}
	if g, w := pairs(got), pairs(want); len(g) != len(w) || g["ledger-node.api"] != w["ledger-node.api"] || g["gateway"] != w["gateway"] || g["ledger-node.worker"] != w["ledger-node.worker"] {
		t.Errorf("components = %v, want %v", g, w)
	}
	again := f.run(t, nil, "init")
	if again.code != 1 || !strings.Contains(again.errOut, "already exists") {
		t.Errorf("second init: exit %d %q", again.code, again.errOut)
	}
}

// A finding prints as "file:line: env [rule] app: message"; without a
// file or an app those parts are left out, not shown as "(qa): qa".
func TestFindingLine(t *testing.T) {
	for _, c := range []struct {
		f    promote.Finding
		want string
	}{
		{promote.Finding{Env: "prod", Rule: "sync-window-invalid", File: "argocd/projects.yaml", Line: 14, Message: "bad schedule"},
			"argocd/projects.yaml:14: prod [sync-window-invalid] bad schedule"},
		{promote.Finding{Env: "qa", Rule: "manifest-unreadable", File: "argocd/qa/apps.yaml", Message: "does not parse"},
			"argocd/qa/apps.yaml: qa [manifest-unreadable] does not parse"},
		{promote.Finding{Env: "qa", Rule: "manifest-unreadable", Message: "appProjects: bad pattern"},
			"qa [manifest-unreadable] appProjects: bad pattern"},
		{promote.Finding{Env: "prod", Rule: "env-parity", App: "ledger-gateway", Message: "missing in prod"},
			"prod [env-parity] ledger-gateway: missing in prod"},
	} {
		if got := findingLine(c.f); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
