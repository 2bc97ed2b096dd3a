//go:build crashtest

package main

import (
	"os/exec"
	"testing"
)

// TestCrashAtEveryStepOfRejectPush kills reject --push at each durable
// step while it rebuilds on a teammate's commit; the next run lands it.
func TestCrashAtEveryStepOfRejectPush(t *testing.T) {
	s := newCrashScenario(t, tunePreprodLogging, "reject", "ledger-node.api@1.4.0", "--reason", "crash test", "--push")
	s.sweep(t)
}

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
