package main

import (
	"strings"
	"testing"
)

// A mistyped --branch never pushes a promotion where nobody reads it:
// the remote's branches are named, nothing is committed or pushed, and
// --create-branch is what means it.
func TestBranchTypoRefused(t *testing.T) {
	f := newFleet(t)
	before := f.snapshot(t)
	for _, args := range [][]string{
		{"apply", "--from", "qa", "--to", "preprod", "--push", "--branch", "mian"},
		{"pin", "--env", "qa", "gateway.imageTag=v1.11", "--push", "--branch", "mian"},
	} {
		r := f.run(t, nil, args...)
		if r.code != 1 || !strings.Contains(r.errOut, "origin has no branch mian (it has: main)") || !strings.Contains(r.errOut, "nothing was committed") {
			t.Errorf("%v: exit %d\nstderr: %s", args, r.code, r.errOut)
		}
		if after := f.snapshot(t); after != before {
			t.Errorf("%v: something was written", args)
		}
		if got := gitRun(t, f.Dir, "ls-remote", "--heads", "origin"); strings.Contains(got, "mian") {
			t.Errorf("%v: the branch was created: %s", args, got)
		}
	}
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push", "--branch", "release-1", "--create-branch")
	if r.code != 0 || !strings.Contains(r.out, "pushed to origin/release-1") {
		t.Fatalf("--create-branch: exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.errOut)
	}
	if r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--create-branch"); r.code != 1 || !strings.Contains(r.errOut, "--create-branch goes with --push") {
		t.Errorf("--create-branch without --push: exit %d: %s", r.code, r.errOut)
	}
}

// A commit that was not pushed says so, and how to push it.
func TestLocalCommitSaysSo(t *testing.T) {
	f := newFleet(t)
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod")
	if r.code != 0 || !strings.Contains(r.out, "not pushed: the commit is on your local HEAD only; re-run with --push to push it to origin/main\n") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.errOut)
	}
	r = f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push")
	if r.code != 0 || !strings.Contains(r.out, "pushed ") {
		t.Fatalf("the advised re-run: exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.errOut)
	}
}
