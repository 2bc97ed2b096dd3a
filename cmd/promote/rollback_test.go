package main

import (
	"strings"
	"testing"
)

// promotedFleet is the fleet after qa was promoted to preprod and pushed.
func promotedFleet(t *testing.T) (*fleet, map[string]string) {
	t.Helper()
	f := newFleet(t)
	before := map[string]string{}
	for _, p := range []string{"versions/preprod.yaml", "argocd/preprod/appset-nodes.yaml", "argocd/preprod/app-gateway.yaml"} {
		before[p] = f.read(t, p)
	}
	if r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push"); r.code != 0 {
		t.Fatalf("apply: exit %d: %s", r.code, r.errOut)
	}
	return f, before
}

// TestRollbackPromoteAgainCycle: promote, roll back (every file byte for
// byte as before the promotion, one pushed commit with the trailers, no
// --allow-downgrade), then the same promotion lands again.
func TestRollbackPromoteAgainCycle(t *testing.T) {
	f, before := promotedFleet(t)
	promotion := gitRun(t, f.Dir, "rev-parse", "HEAD")
	point := gitRun(t, f.Dir, "rev-parse", "HEAD~1")

	snap := f.snapshot(t)
	r := f.run(t, nil, "rollback", "--env", "preprod", "--reason", "LEDGER-901: 5xx after 1.4.0", "--plan")
	if r.code != 0 || !strings.Contains(r.out, "rollback preprod to "+point[:12]) ||
		!strings.Contains(r.out, "1.4.0 -> 1.3.1") || !strings.Contains(r.out, `-        targetRevision: "1.4.0"`) {
		t.Fatalf("--plan: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	if after := f.snapshot(t); after != snap {
		t.Fatalf("--plan wrote something: %+v -> %+v", snap, after)
	}

	r = f.run(t, nil, "rollback", "--env", "preprod", "--reason", "LEDGER-901: 5xx after 1.4.0", "--skip-chart-check", "--push")
	if r.code != 0 {
		t.Fatalf("rollback: exit %d: %s", r.code, r.errOut)
	}
	for p, want := range before {
		if got := f.read(t, p); got != want {
			t.Errorf("%s after the rollback differs from before the promotion:\n%s", p, got)
		}
	}
	msg := gitRun(t, f.Remote, "log", "-1", "--format=%B", "main")
	for _, want := range []string{"chore(preprod): roll back to " + point[:12] + " [skip ci]",
		"Rolled-Back-To: " + point, "Rollback-Reason: LEDGER-901: 5xx after 1.4.0"} {
		if !strings.Contains(msg, want) {
			t.Errorf("commit message lacks %q:\n%s", want, msg)
		}
	}
	if parent := gitRun(t, f.Remote, "rev-parse", "main~1"); parent != promotion {
		t.Errorf("rollback parent %s, want the promotion %s", parent, promotion)
	}
	if st := gitRun(t, f.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("status after rollback: %s", st)
	}

	r = f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push")
	if r.code != 0 || !strings.Contains(f.read(t, "versions/preprod.yaml"), `chartVersion: "1.4.0"`) {
		t.Fatalf("promote again: exit %d: %s", r.code, r.errOut)
	}
	r = f.run(t, nil, "history", "--env", "preprod", "-o", "markdown")
	if r.code != 0 {
		t.Fatalf("history: exit %d: %s", r.code, r.errOut)
	}
	golden(t, "history-rollback.md", normalizeCommits(t, f.Dir, r.out))
}

// normalizeCommits replaces the clone's commit hashes (they depend on the
// time of the run) and today's dates by stable names.
func normalizeCommits(t *testing.T, dir, s string) string {
	t.Helper()
	for i, h := range strings.Fields(gitRun(t, dir, "rev-list", "--first-parent", "HEAD")) {
		name := "commit" + string(rune('A'+i))
		s = strings.ReplaceAll(s, h, "<"+name+">")
		s = strings.ReplaceAll(s, h[:12], "<"+name+strings.Repeat("-", 12-len(name)-2)+">")
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines { // promote's commits carry the time of the run
		if f := strings.Split(l, " | "); len(f) > 2 && strings.HasPrefix(f[1], "20") {
			f[1] = "<date>"
			lines[i] = strings.Join(f, " | ")
		}
	}
	return strings.Join(lines, "\n")
}

// TestRollbackRefusesTeammateField: a teammate changed a field of a
// component being rolled back; the rollback names it and writes nothing,
// then --force-fields restores it too and records it.
func TestRollbackRefusesTeammateField(t *testing.T) {
	f, _ := promotedFleet(t)
	other := f.clone(t, "other", "Teammate Tess")
	editAndPush(t, other, "versions/preprod.yaml", "replicas: 2", "replicas: 3", "scale the preprod worker")
	gitRun(t, f.Dir, "pull", "-q", "--ff-only", "origin", "main")

	snap := f.snapshot(t)
	r := f.run(t, nil, "rollback", "--env", "preprod", "--reason", "bad release", "--skip-chart-check", "--push")
	if r.code != 1 || !strings.Contains(r.errOut, "ledger-node.worker.replicas was changed from 2 to 3 by Teammate Tess <teammate@example.com>") ||
		!strings.Contains(r.errOut, "--force-fields") {
		t.Fatalf("want a refusal naming the field and who changed it, got exit %d: %s", r.code, r.errOut)
	}
	if after := f.snapshot(t); after != snap {
		t.Fatalf("a refused rollback wrote something: %+v -> %+v", snap, after)
	}
	// --only leaves the teammate's component alone
	r = f.run(t, nil, "rollback", "--env", "preprod", "--reason", "bad release", "--only", "ledger-node.api", "--plan")
	if r.code != 0 || strings.Contains(r.out, "replicas") || !strings.Contains(r.out, "ledger-node.api") {
		t.Fatalf("--only: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	r = f.run(t, nil, "rollback", "--env", "preprod", "--reason", "bad release", "--force-fields", "--skip-chart-check", "--push")
	if r.code != 0 {
		t.Fatalf("--force-fields: exit %d: %s", r.code, r.errOut)
	}
	if v := f.read(t, "versions/preprod.yaml"); !strings.Contains(v, "replicas: 2 ") || !strings.Contains(v, `chartVersion: "1.3.1"`) {
		t.Errorf("after --force-fields:\n%s", v)
	}
	if msg := gitRun(t, f.Remote, "log", "-1", "--format=%B", "main"); !strings.Contains(msg, "Rollback-Forced-Fields: ledger-node.worker.replicas") {
		t.Errorf("forced field not recorded:\n%s", msg)
	}
}

// TestRollbackRacesConcurrentPromotion: while a rollback is planned on a
// stale clone, a teammate's pipeline lands first. An unrelated change is
// rebuilt on (one commit on theirs); a new value of a field the rollback
// restores stops it, naming the field, with nothing pushed.
func TestRollbackRacesConcurrentPromotion(t *testing.T) {
	t.Run("unrelated", func(t *testing.T) {
		f, before := promotedFleet(t)
		other := f.clone(t, "other", "Other Pipeline")
		tunePreprodLogging(t, other)
		theirs := gitRun(t, f.Remote, "rev-parse", "main")
		r := f.run(t, nil, "rollback", "--env", "preprod", "--reason", "bad", "--skip-chart-check", "--push")
		if r.code != 0 || !strings.Contains(r.errOut, "rebuilding") {
			t.Fatalf("exit %d: %s", r.code, r.errOut)
		}
		if parent := gitRun(t, f.Remote, "rev-parse", "main~1"); parent != theirs {
			t.Errorf("rollback landed on %s, want theirs %s", parent, theirs)
		}
		if got := gitRun(t, f.Remote, "show", "main:versions/preprod.yaml"); got+"\n" != before["versions/preprod.yaml"] {
			t.Errorf("remote preprod after the rollback:\n%s", got)
		}
	})
	t.Run("same field", func(t *testing.T) {
		f, _ := promotedFleet(t)
		other := f.clone(t, "other", "Other Pipeline")
		editAndPush(t, other, "versions/preprod.yaml", `imageTag: "v3.2.0"`, `imageTag: "v3.2.1"`, "chore(preprod): pin ledger-node.api.imageTag [skip ci]")
		theirs := gitRun(t, f.Remote, "rev-parse", "main")
		r := f.run(t, nil, "rollback", "--env", "preprod", "--reason", "bad", "--skip-chart-check", "--push")
		if r.code != 1 || !strings.Contains(r.errOut, "ledger-node.api.imageTag") || !strings.Contains(r.errOut, "v3.2.1") {
			t.Fatalf("want a stop naming the field, got exit %d: %s", r.code, r.errOut)
		}
		if tip := gitRun(t, f.Remote, "rev-parse", "main"); tip != theirs {
			t.Errorf("remote moved to %s", tip)
		}
	})
}

// TestRollbackUsageErrors: one line, exit 1, nothing written.
func TestRollbackUsageErrors(t *testing.T) {
	f := newFleet(t)
	snap := f.snapshot(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rollback", "--env", "preprod"}, "rollback needs --reason"},
		{[]string{"rollback", "--reason", "x"}, "rollback needs --env"},
		{[]string{"rollback", "--env", "preprod", "--reason", "x", "--to", "HEAD", "--steps", "2"}, "mutually exclusive"},
		{[]string{"rollback", "--env", "preprod", "--reason", "x"}, "nothing to roll back"},
		{[]string{"rollback", "--env", "staging", "--reason", "x"}, "staging"},
		{[]string{"history"}, "history needs --env"},
	} {
		r := f.run(t, nil, tc.args...)
		if r.code != 1 || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("%v: exit %d, want 1 and %q: %s", tc.args, r.code, tc.want, r.errOut)
		}
	}
	if after := f.snapshot(t); after != snap {
		t.Errorf("refused commands wrote something: %+v -> %+v", snap, after)
	}
}

// TestRollbackToCommitOutsideEnvHistory: --to a commit that changed
// nothing of the env, followed by others that did not either; hand edits
// older than it (the initial layout) are not "since the point".
func TestRollbackToCommitOutsideEnvHistory(t *testing.T) {
	f := newFleet(t)
	f.commitFile(t, "NOTES.md", "one\n", "docs: one")
	point := gitRun(t, f.Dir, "rev-parse", "HEAD")
	f.commitFile(t, "NOTES.md", "two\n", "docs: two")
	if r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check"); r.code != 0 {
		t.Fatalf("apply: exit %d: %s", r.code, r.errOut)
	}
	r := f.run(t, nil, "rollback", "--env", "preprod", "--to", point[:10], "--reason", "back", "--skip-chart-check")
	if r.code != 0 || !strings.Contains(r.out, "rollback preprod to "+point[:12]) {
		t.Fatalf("exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	if got := gitRun(t, f.Dir, "show", point+":versions/preprod.yaml"); got+"\n" != f.read(t, "versions/preprod.yaml") {
		t.Errorf("preprod not restored to %s:\n%s", point[:12], f.read(t, "versions/preprod.yaml"))
	}
	r = f.run(t, nil, "rollback", "--env", "preprod", "--to", "no-such-rev", "--reason", "back")
	if r.code != 1 || !strings.Contains(r.errOut, "--to") {
		t.Errorf("unknown --to: exit %d: %s", r.code, r.errOut)
	}
}

// tunePreprodLogging is a teammate's commit that touches no file a
// promotion or rollback edits.
func tunePreprodLogging(t *testing.T, dir string) {
	editAndPush(t, dir, "envs/preprod/common.yaml", "logLevel: debug", "logLevel: warn", "tune preprod logging")
}
