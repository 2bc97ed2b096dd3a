package main

import (
	"strings"
	"testing"
)

// TestRejectRefusesPromotion: a teammate rejects the api chart qa runs;
// promoting it from qa is refused with the reason and who rejected it,
// nothing written; --allow-rejected lands it and records the override;
// check and status name the envs running it; unreject lifts it.
func TestRejectRefusesPromotion(t *testing.T) {
	f := newFleet(t)
	other := f.clone(t, "other", "Teammate Tess")
	r := runIn(t, f, other, "reject", "ledger-node.api@1.4.0", "--reason", "LEDGER-901: 5xx under load", "--push")
	if r.code != 0 || !strings.Contains(r.out, "reject ledger-node.api.chartVersion@1.4.0") {
		t.Fatalf("reject: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	if msg := gitRun(t, f.Remote, "log", "-1", "--format=%an%n%B", "main"); !strings.Contains(msg, "Teammate Tess\nchore(rejected): reject ledger-node.api.chartVersion@1.4.0 [skip ci]") ||
		!strings.Contains(msg, "Reject-Reason: LEDGER-901: 5xx under load") {
		t.Errorf("reject commit:\n%s", msg)
	}
	if got := gitRun(t, f.Remote, "diff", "--name-only", "main~1", "main"); got != "rejected-versions.yaml" {
		t.Errorf("reject changed %q, want rejected-versions.yaml only", got)
	}
	gitRun(t, f.Dir, "pull", "-q", "--ff-only", "origin", "main")

	snap := f.snapshot(t)
	for _, args := range [][]string{
		{"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push"},
		{"plan", "--from", "qa", "--to", "preprod"},
		{"pin", "--env", "prod", "ledger-node.api.chartVersion=1.4.0", "--skip-chart-check"},
	} {
		r = f.run(t, nil, args...)
		if r.code != 1 || !strings.Contains(r.errOut, "ledger-node.api.chartVersion 1.4.0 is rejected (LEDGER-901: 5xx under load; rejected by Teammate Tess <teammate@example.com> in ") ||
			!strings.Contains(r.errOut, "--allow-rejected") {
			t.Errorf("%s: want a refusal with the reason and who, got exit %d: %s", args[0], r.code, r.errOut)
		}
	}
	if after := f.snapshot(t); after != snap {
		t.Fatalf("refused promotions wrote something: %+v -> %+v", snap, after)
	}

	r = f.run(t, nil, "check", "--env", "qa")
	if r.code != 1 || !strings.Contains(r.out, "versions/qa.yaml:4: qa [rejected-version] ledger-node.api.chartVersion is 1.4.0, which is rejected (LEDGER-901: 5xx under load)") {
		t.Errorf("check: exit %d\n%s", r.code, r.out)
	}
	r = f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push", "--allow-rejected", "verified in qa by hand")
	if r.code != 0 {
		t.Fatalf("--allow-rejected: exit %d: %s", r.code, r.errOut)
	}
	if msg := gitRun(t, f.Remote, "log", "-1", "--format=%B", "main"); !strings.Contains(msg,
		"Rejected-Overridden: ledger-node.api.chartVersion@1.4.0 by rm@example.com: verified in qa by hand") {
		t.Errorf("override not recorded:\n%s", msg)
	}
	r = f.run(t, nil, "status", "-o", "markdown", "--no-gitlab")
	if !strings.Contains(r.out, "| `ledger-node.api` | `1.4.0` `v3.2.0` ⛔ | `1.4.0` `v3.2.0` ⛔ |") {
		t.Errorf("status does not mark qa and preprod:\n%s", r.out)
	}
	r = f.run(t, nil, "history", "--env", "preprod", "-o", "json")
	if !strings.Contains(r.out, `"overrides": [`) || !strings.Contains(r.out, "ledger-node.api.chartVersion@1.4.0 by rm@example.com") {
		t.Errorf("history lacks the override:\n%s", r.out)
	}

	r = f.run(t, nil, "unreject", "ledger-node.api@1.4.0", "--push")
	if r.code != 0 {
		t.Fatalf("unreject: exit %d: %s", r.code, r.errOut)
	}
	if r = f.run(t, nil, "pin", "--env", "prod", "ledger-node.api.chartVersion=1.4.0", "--skip-chart-check"); r.code != 0 {
		t.Errorf("pin after unreject: exit %d: %s", r.code, r.errOut)
	}
	// a value no env holds, a bad argument, no reason: nothing written
	head := gitRun(t, f.Dir, "rev-parse", "HEAD")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reject", "ledger-node.api@9.9.9", "--reason", "x"}, "no environment has ledger-node.api at 9.9.9: name the field"},
		{[]string{"reject", "ledger-node.api", "--reason", "x"}, "is not COMPONENT@VERSION"},
		{[]string{"reject", "ledger-node.api@1.4.0"}, "reject needs --reason"},
	} {
		if r = f.run(t, nil, tc.args...); r.code != 1 || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("%v: exit %d, want %q: %s", tc.args, r.code, tc.want, r.errOut)
		}
	}
	if now := gitRun(t, f.Dir, "rev-parse", "HEAD"); now != head {
		t.Errorf("a refused reject committed %s", now)
	}
}

// runIn runs promote in another clone of f's remote.
func runIn(t *testing.T, f *fleet, dir string, args ...string) result {
	t.Helper()
	saved := f.Dir
	f.Dir = dir
	defer func() { f.Dir = saved }()
	return f.run(t, nil, args...)
}
