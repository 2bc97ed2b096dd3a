package main

import (
	"strings"
	"testing"
	"time"
)

// The fleet with gates on prod, pushed, and GitLab told about its commits.
// Prod's AppProject has the sync windows given (clock independent ones:
// the CLI reads the real clock): the example's AppProjects file (its
// .promote.yaml's appProjects) is replaced by one with prod's alone.
func newGatedFleet(t *testing.T, gates, windows string) *mrFleet {
	t.Helper()
	m := newMRFleet(t)
	if !strings.Contains(m.read(t, ".promote.yaml"), "appProjects: [argocd/projects.yaml]") {
		t.Fatal("the example's .promote.yaml no longer reads argocd/projects.yaml")
	}
	m.commitFile(t, "argocd/projects.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata:\n  name: ledger-prod\nspec:\n  syncWindows:\n"+windows, "prod's sync windows")
	cfg := m.read(t, ".promote.yaml") + "gates:\n  prod: " + gates + "\n"
	m.commitFile(t, ".promote.yaml", cfg, "gate prod")
	// preprod runs qa's values: promoting preprod to prod moves them on
	if r := m.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check"); r.code != 0 {
		t.Fatalf("seed promotion: %s", r.errOut)
	}
	gitRun(t, m.Dir, "push", "-q", "origin", "main")
	for _, sha := range strings.Fields(gitRun(t, m.Dir, "rev-list", "HEAD")) {
		m.gl.AddCommit("42", sha)
	}
	return m
}

// always open: an allow window whose occurrences overlap back to back.
const alwaysOpen = "  - {kind: allow, schedule: \"* * * * *\", duration: 2m, applications: [\"*\"]}\n"

// always closed, even for manual syncs: a deny window the same way.
const alwaysClosed = "  - {kind: deny, schedule: \"* * * * *\", duration: 2m, applications: [\"*\"]}\n"

var preprodApps = []string{"ledger-root-preprod", "ledger-gateway-preprod", "ledger-node-a-api-preprod",
	"ledger-node-d-api-preprod", "ledger-node-a-worker-preprod", "ledger-node-d-worker-preprod"}

func (m *mrFleet) report(t *testing.T, state string, age time.Duration, apps ...string) {
	t.Helper()
	head := gitRun(t, m.Dir, "rev-parse", "HEAD")
	m.gl.SetNow(time.Now().Add(-age))
	for _, a := range apps {
		m.gl.AddStatus("42", head, "argocd/"+a, state, "Synced/Healthy", "")
	}
}

// promote-prod refuses until preprod's Argo CD reports every app healthy
// on the values being promoted, then opens the merge request.
func TestGatesRefuseUntilPreprodHealthy(t *testing.T) {
	m := newGatedFleet(t, "{sourceHealthy: true, minSoak: 1h, syncWindow: require}", alwaysOpen)
	apply := []string{"apply", "--from", "preprod", "--to", "prod", "--merge-request", "--skip-chart-check"}

	r := m.run(t, m.env, apply...)
	if r.code != exitGateRefused || !strings.Contains(r.errOut, "preprod -> prod refused by gate sourceHealthy: ledger-gateway-preprod: not reported") ||
		!strings.Contains(r.errOut, "--override-source-healthy REASON") {
		t.Fatalf("no statuses: exit %d\n%s", r.code, r.errOut)
	}
	if m.remoteRef(t, "promote/preprod-to-prod") != "" || len(m.gl.MRs(mrProject)) != 0 {
		t.Fatal("a refused promotion pushed a branch or opened a merge request")
	}

	m.report(t, "success", 3*time.Hour, preprodApps...)
	m.gl.SetNow(time.Now().Add(-10 * time.Minute))
	head := gitRun(t, m.Dir, "rev-parse", "HEAD")
	m.gl.AddStatus("42", head, "argocd/ledger-node-d-worker-preprod", "failed", "Synced/Degraded", "")
	r = m.run(t, m.env, apply...)
	if r.code != exitGateRefused || !strings.Contains(r.errOut, "ledger-node-d-worker-preprod: failed on "+head[:12]) {
		t.Fatalf("degraded: exit %d\n%s", r.code, r.errOut)
	}
	// plan refuses the same way, with the same exit code
	if p := m.run(t, m.env, "plan", "--from", "preprod", "--to", "prod"); p.code != exitGateRefused || !strings.Contains(p.errOut, "ledger-node-d-worker-preprod: failed") {
		t.Errorf("plan: exit %d\n%s", p.code, p.errOut)
	}

	m.report(t, "success", 90*time.Minute, "ledger-node-d-worker-preprod")
	if p := m.runOK(t, "plan", "--from", "preprod", "--to", "prod", "-o", "json"); !strings.Contains(p.out, `"gate": "minSoak"`) ||
		!strings.Contains(p.out, `"passed": true`) {
		t.Errorf("plan -o json has no gates:\n%s", p.out)
	} else if strings.Contains(p.errOut, "gate minSoak") {
		t.Errorf("plan -o json says the gates again on stderr:\n%s", p.errOut)
	}
	r = m.runOK(t, apply...)
	if !strings.Contains(r.out, "merge request opened") || !strings.Contains(r.errOut, "gate sourceHealthy passed: 6 of 6 preprod apps healthy") ||
		!strings.Contains(r.errOut, "gate minSoak passed") || !strings.Contains(r.errOut, "gate syncWindow passed") {
		t.Errorf("healthy: %s\n%s", r.out, r.errOut)
	}
	mrs := m.gl.MRs(mrProject)
	if len(mrs) != 1 || !strings.Contains(mrs[0].Description, "- gate sourceHealthy passed") {
		t.Errorf("merge request: %+v", mrs)
	}
}

// An override lets the promotion through and is recorded in the commit,
// with who gave it.
func TestGateOverrideIsRecorded(t *testing.T) {
	m := newGatedFleet(t, "{sourceHealthy: true, syncWindow: require}", alwaysClosed)
	env := map[string]string{"CI_API_V4_URL": m.gl.URL(), "CI_PROJECT_ID": mrProject, "GITLAB_TOKEN": m.gl.Token(),
		"GITLAB_USER_LOGIN": "alice"}
	m.report(t, "success", time.Hour, preprodApps...)
	before := m.snapshot(t)
	r := m.run(t, env, "apply", "--from", "preprod", "--to", "prod", "--push", "--skip-chart-check")
	if r.code != exitGateRefused || !strings.Contains(r.errOut, "refused by gate syncWindow: prod closed for") ||
		!strings.Contains(r.errOut, "--override-sync-window REASON") {
		t.Fatalf("closed window: exit %d\n%s", r.code, r.errOut)
	}
	if m.snapshot(t) != before {
		t.Fatal("a refused apply wrote something")
	}
	r = m.run(t, env, "apply", "--from", "preprod", "--to", "prod", "--push", "--skip-chart-check",
		"--override-sync-window", "CAB-7 emergency change")
	if r.code != 0 {
		t.Fatalf("overridden: exit %d\n%s", r.code, r.errOut)
	}
	msg := gitRun(t, m.Remote, "log", "-1", "--format=%B", "main")
	if !strings.HasSuffix(msg, "\nGate-Overridden: syncWindow by alice: CAB-7 emergency change") {
		t.Errorf("pushed commit:\n%s", msg)
	}
	if !strings.Contains(r.errOut, "warning: gate syncWindow overridden by alice (CAB-7 emergency change)") {
		t.Errorf("stderr: %s", r.errOut)
	}
	if r := m.run(t, env, "apply", "--from", "preprod", "--to", "prod", "--override-min-soak", " "); r.code != 1 ||
		!strings.Contains(r.errOut, "give a reason") {
		t.Errorf("empty reason: exit %d %s", r.code, r.errOut)
	}
}

// Without the GitLab variables a health gate cannot be evaluated: it
// refuses and says what is missing; no GitLab request is made.
func TestGateWithoutGitLabRefuses(t *testing.T) {
	m := newGatedFleet(t, "{sourceHealthy: true}", alwaysOpen)
	r := m.run(t, nil, "apply", "--from", "preprod", "--to", "prod", "--skip-chart-check")
	if r.code != exitGateRefused || !strings.Contains(r.errOut, "cannot evaluate: GitLab is not configured (CI_API_V4_URL, CI_PROJECT_ID, GITLAB_TOKEN not set") {
		t.Errorf("exit %d\n%s", r.code, r.errOut)
	}
	if n := m.gl.Calls("total"); n != 0 {
		t.Errorf("%d GitLab requests", n)
	}
	// Both health gates and a closed window: one line per reason, the
	// shared one once, and the hint on a line of its own.
	m = newGatedFleet(t, "{sourceHealthy: true, minSoak: 2h, syncWindow: require}", alwaysClosed)
	r = m.run(t, nil, "plan", "--from", "preprod", "--to", "prod")
	lines := strings.Split(strings.TrimSpace(r.errOut), "\n")
	if r.code != exitGateRefused || len(lines) != 4 || !strings.HasSuffix(lines[0], "preprod -> prod refused by gates") ||
		!strings.HasPrefix(lines[1], "  sourceHealthy and minSoak: cannot evaluate: GitLab is not configured") ||
		!strings.HasPrefix(lines[2], "  syncWindow: ") || !strings.HasPrefix(lines[3], "  (wait until the gate passes") ||
		strings.Count(r.errOut, "GitLab is not configured") != 1 {
		t.Errorf("exit %d, %d lines:\n%s", r.code, len(lines), r.errOut)
	}
}

// plan and apply read deployment statuses from the same commit: the
// remote branch as fetched (refs/remotes/origin/main), not the local
// HEAD; without it, the source revision when one is named; else HEAD.
// Here main moved on the remote after the local HEAD, and preprod's
// Argo CD reported a worker degraded on that newer commit.
func TestGatesWalkFromTheRemoteBranch(t *testing.T) {
	m := newGatedFleet(t, "{sourceHealthy: true}", alwaysOpen)
	m.report(t, "success", 3*time.Hour, preprodApps...) // on the local HEAD, pushed
	tip := m.landOnMain(t)
	m.gl.AddCommit("42", tip)
	m.gl.SetNow(time.Now().Add(-10 * time.Minute))
	m.gl.AddStatus("42", tip, "argocd/ledger-node-d-worker-preprod", "failed", "Synced/Degraded", "")
	gitRun(t, m.Dir, "fetch", "-q", "origin") // as the CI runner leaves it: origin/main ahead of HEAD
	degraded := "ledger-node-d-worker-preprod: failed on " + tip[:12]
	plan := []string{"plan", "--from", "preprod", "--to", "prod"}

	p := m.run(t, m.env, plan...)
	if p.code != exitGateRefused || !strings.Contains(p.errOut, degraded) {
		t.Errorf("plan (origin/main ahead of HEAD): exit %d\n%s", p.code, p.errOut)
	}
	before := m.snapshot(t)
	a := m.run(t, m.env, "apply", "--from", "preprod", "--to", "prod", "--push", "--skip-chart-check")
	if a.code != exitGateRefused || !strings.Contains(a.errOut, degraded) || m.snapshot(t) != before {
		t.Errorf("apply --push: exit %d\n%s", a.code, a.errOut)
	}
	if a := m.run(t, m.env, "apply", "--from", "preprod", "--to", "prod", "--skip-chart-check"); a.code != exitGateRefused ||
		!strings.Contains(a.errOut, degraded) {
		t.Errorf("plain apply: exit %d\n%s", a.code, a.errOut)
	}

	// No remote-tracking branch: the named source revision, else HEAD.
	gitRun(t, m.Dir, "update-ref", "-d", "refs/remotes/origin/main")
	if p := m.run(t, m.env, append(plan, "--source-rev", tip)...); p.code != exitGateRefused || !strings.Contains(p.errOut, degraded) {
		t.Errorf("plan --source-rev %s: exit %d\n%s", tip[:12], p.code, p.errOut)
	}
	if p := m.run(t, m.env, plan...); p.code != 0 || !strings.Contains(p.errOut, "gate sourceHealthy passed: 6 of 6 preprod apps healthy") {
		t.Errorf("plan from HEAD: exit %d\n%s", p.code, p.errOut)
	}
	// --remote/--branch name the tracking ref, as for apply.
	gitRun(t, m.Dir, "update-ref", "refs/remotes/upstream/release", tip)
	if p := m.run(t, m.env, append(plan, "--remote", "upstream", "--branch", "release")...); p.code != exitGateRefused ||
		!strings.Contains(p.errOut, degraded) {
		t.Errorf("plan --remote upstream --branch release: exit %d\n%s", p.code, p.errOut)
	}
}
