package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCrashAtEveryStepOfRollbackPush kills rollback --push at each of its
// durable steps while it rebuilds on a teammate's commit: the next run
// lands the rollback on it and leaves a clean clone.
func TestCrashAtEveryStepOfRollbackPush(t *testing.T) {
	f, _ := promotedFleet(t)
	other := f.clone(t, "other", "Other Pipeline")
	tunePreprodLogging(t, other)
	proto := t.TempDir()
	for _, dir := range []string{f.Dir, f.Remote} {
		if out, err := exec.Command("cp", "-a", dir, proto).CombinedOutput(); err != nil {
			t.Fatalf("cp -a: %v: %s", err, out)
		}
	}
	s := &crashScenario{proto: proto, theirs: gitRun(t, f.Remote, "rev-parse", "main"),
		args: []string{"rollback", "--env", "preprod", "--reason", "crash test", "--skip-chart-check", "--push"}}
	s.sweep(t)
}

// TestRollbackAndRejectMergeRequest: on a protected branch, rollback and
// reject each push one commit on the remote main to a branch of their
// own and open its merge request; nothing local moves.
func TestRollbackAndRejectMergeRequest(t *testing.T) {
	m := newMRFleet(t)
	if r := m.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push"); r.code != 0 {
		t.Fatalf("apply: exit %d: %s", r.code, r.errOut)
	}
	point := gitRun(t, m.Dir, "rev-parse", "HEAD~1")
	before := m.snapshot(t)
	r := m.runOK(t, "rollback", "--env", "preprod", "--reason", "LEDGER-901", "--skip-chart-check", "--merge-request")
	mr := m.oneOpenMR(t)
	branch := "rollback/preprod-to-" + point[:12]
	checkMR(t, mr, r, branch, "chore(preprod): roll back to "+point[:12], "LEDGER-901", "1.3.1")
	tip := m.remoteRef(t, branch)
	if tip == "" || gitRun(t, m.Remote, "rev-parse", tip+"^1") != before.remote {
		t.Errorf("branch %s is %q, want a commit on the remote main", branch, tip)
	}
	if msg := gitRun(t, m.Remote, "log", "-1", "--format=%B", tip); !strings.Contains(msg, "Rolled-Back-To: "+point) {
		t.Errorf("rollback commit:\n%s", msg)
	}
	r = m.runOK(t, "reject", "ledger-node.api@1.4.0", "--reason", "LEDGER-901", "--merge-request")
	var rejectMR bool
	for _, mr := range m.gl.MRs(mrProject) {
		if strings.HasPrefix(mr.SourceBranch, "reject/ledger-node-api-") && mr.Title == "chore(rejected): reject ledger-node.api.chartVersion@1.4.0" &&
			strings.Contains(r.out, mr.WebURL) {
			rejectMR = true
		}
	}
	if !rejectMR {
		t.Errorf("no reject merge request: %+v\n%s", m.gl.MRs(mrProject), r.out)
	}
	if after := m.snapshot(t); after != before {
		t.Errorf("target branch, local branch or work tree changed: %+v -> %+v", before, after)
	}
}
