package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// promote status reads git objects only by default: after a real apply it
// names that promotion, and it writes nothing.
func TestStatusVerb(t *testing.T) {
	f := newFleet(t)
	if r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check"); r.code != 0 {
		t.Fatalf("apply: %d %s", r.code, r.errOut)
	}
	before := f.snapshot(t)
	r := f.run(t, nil, "status", "-o", "json")
	if r.code != 0 {
		t.Fatalf("status: %d %s", r.code, r.errOut)
	}
	var v struct {
		Head string
		Envs []struct {
			Env           string
			Apps          int
			LastPromotion *struct{ Verb, From, FromCommit string }
			Health        any
		}
	}
	if err := json.Unmarshal([]byte(r.out), &v); err != nil {
		t.Fatalf("json: %v\n%s", err, r.out)
	}
	if len(v.Envs) != 3 || v.Envs[1].LastPromotion == nil || v.Envs[1].LastPromotion.From != "qa" || v.Envs[1].Health != nil {
		t.Errorf("status: %+v", v)
	}
	if strings.Contains(r.errOut, "GitLab") {
		t.Errorf("no gate reads health, yet stderr speaks of GitLab: %q", r.errOut)
	}
	gated := newFleet(t)
	gated.commitFile(t, ".promote.yaml", gated.read(t, ".promote.yaml")+"gates:\n  prod: {sourceHealthy: true}\n", "a health gate")
	if r := gated.run(t, nil, "status", "-o", "json"); r.code != 0 || !strings.Contains(r.errOut, "deployment health not shown: GitLab is not configured") {
		t.Errorf("a health gate without GitLab: %d, stderr %q", r.code, r.errOut)
	}
	if f.snapshot(t) != before {
		t.Error("status changed the repository")
	}
	// Not a terminal and no -o: markdown, for a file or a merge request.
	if r := f.run(t, nil, "status", "--quiet"); r.code != 0 || !strings.HasPrefix(r.out, "### Environments at `") || r.errOut != "" {
		t.Errorf("default output off a terminal: %d %q %q", r.code, r.out, r.errOut)
	}
	if r := f.run(t, nil, "status", "-o", "table", "--rev", "HEAD~1"); r.code != 0 || !strings.Contains(r.out, "last promotion: -") {
		t.Errorf("--rev HEAD~1 (before the promotion): %d\n%s", r.code, r.out)
	}
	if r := f.run(t, nil, "status", "--rev", "no-such-branch"); r.code != 1 || !strings.Contains(r.errOut, `resolving "no-such-branch"`) {
		t.Errorf("bad --rev: %d %q", r.code, r.errOut)
	}
}

// With the GitLab variables set, health comes from the commit statuses;
// half of them set is a warning, never a guess.
func TestStatusVerbHealth(t *testing.T) {
	f := newFleet(t)
	gl := gitlabfake.New(t, gitlabfake.Options{})
	gl.AddProject(42, "platform/ledger-fleet")
	head := gitRun(t, f.Dir, "rev-parse", "HEAD")
	gl.AddCommit("42", head)
	gl.SetNow(time.Now().Add(-time.Hour))
	gl.AddStatus("42", head, "argocd/ledger-gateway-prod", "failed", "Synced/Degraded", "")
	env := map[string]string{"CI_API_V4_URL": gl.URL(), "CI_PROJECT_ID": "42", "GITLAB_TOKEN": gl.Token()}
	r := f.run(t, env, "status", "-o", "table")
	if r.code != 0 || !strings.Contains(r.out, "ledger-gateway-prod: failed on "+head[:12]) || !strings.Contains(r.out, "health:") {
		t.Errorf("status with GitLab: %d\n%s\n%s", r.code, r.out, r.errOut)
	}
	if n := gl.Calls("GET statuses"); n != 1 {
		t.Errorf("%d status listings for a one-commit history, want 1", n)
	}
	if leaks := gl.Leaks(gl.Token()); len(leaks) > 0 || strings.Contains(r.out+r.errOut, gl.Token()) {
		t.Errorf("token leaked: %v", leaks)
	}
	delete(env, "GITLAB_TOKEN")
	r = f.run(t, env, "status", "-o", "table")
	if r.code != 0 || strings.Contains(r.out, "health:") || !strings.Contains(r.errOut, "warning: deployment health not shown: GitLab is half configured (GITLAB_TOKEN not set)") {
		t.Errorf("half configured: %d %q", r.code, r.errOut)
	}
}

// A malformed AppProject: promote status names each broken window once,
// at the line promote check reports, and that line of the file holds the
// broken field; the env's window is unknown (null), not closed.
func TestStatusAndCheckAgreeOnBrokenWindows(t *testing.T) {
	f := newFleet(t)
	projects := "# the prod AppProject\napiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata:\n  name: ledger-prod\nspec:\n" +
		"  sourceRepos: [\"*\"]\n  syncWindows:\n  - kind: allow\n    schedule: \"0 22 * * 9\"\n    duration: 4h\n" +
		"    applications: [\"*\"]\n  - kind: deny\n    duration: 1h\n    schedule: \"0 0 * * *\"\n    timeZone: Europe/Atlantis\n" +
		"    applications: [\"*\"]\n"
	// the example's AppProjects file (.promote.yaml's appProjects), replaced
	f.commitFile(t, "argocd/projects.yaml", projects, "a broken prod AppProject")
	lines := strings.Split(projects, "\n")

	r := f.run(t, nil, "check", "--env", "prod", "-o", "json")
	var check struct {
		Findings []struct {
			Rule, File string
			Line       int
		}
	}
	if err := json.Unmarshal([]byte(r.out), &check); err != nil || r.code != 1 {
		t.Fatalf("check: exit %d %v\n%s", r.code, err, r.out)
	}
	var at []string
	for i, want := range []string{`schedule: "0 22 * * 9"`, "timeZone: Europe/Atlantis"} {
		fd := check.Findings[i]
		if fd.Rule != "sync-window-invalid" || strings.TrimSpace(lines[fd.Line-1]) != want {
			t.Errorf("check finding %+v points at %q, want %q", fd, lines[fd.Line-1], want)
		}
		at = append(at, fmt.Sprintf("%s:%d: ", fd.File, fd.Line))
	}

	r = f.run(t, nil, "status", "-o", "json")
	var v struct {
		Envs []struct {
			Env    string
			Window struct {
				Open    *bool
				Reason  string
				Summary string
			}
		}
	}
	if err := json.Unmarshal([]byte(r.out), &v); err != nil || r.code != 0 {
		t.Fatalf("status: exit %d %v\n%s", r.code, err, r.out)
	}
	prod := v.Envs[2].Window
	if v.Envs[2].Env != "prod" || prod.Open != nil || !strings.Contains(prod.Reason, "cannot evaluate AppProject ledger-prod") ||
		!strings.Contains(r.out, `"open": null`) {
		t.Errorf("prod window: %+v", prod)
	}
	for _, a := range at {
		if n := strings.Count(prod.Summary, a); n != 1 {
			t.Errorf("%q is said %d times in status, want once at check's line:\n%s", a, n, prod.Summary)
		}
	}
}
