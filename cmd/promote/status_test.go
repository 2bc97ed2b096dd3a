package main

import (
	"encoding/json"
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
	if !strings.Contains(r.errOut, "deployment health not shown: GitLab is not configured") {
		t.Errorf("stderr: %q", r.errOut)
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
	if r.code != 0 || strings.Contains(r.out, "health:") || !strings.Contains(r.errOut, "warning: deployment health not shown: GitLab is half configured missing=[GITLAB_TOKEN]") {
		t.Errorf("half configured: %d %q", r.code, r.errOut)
	}
}
