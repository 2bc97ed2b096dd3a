package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failPush runs apply --push while origin's pre-receive hook refuses
// every push: the promotion is committed locally and not pushed, as after
// a network or credential failure between promote's fetch and its push.
// It returns the local commit; the hook is gone afterwards.
func failPush(t *testing.T, f *fleet) string {
	t.Helper()
	hook := filepath.Join(f.Remote, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'pushes are paused' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push")
	if r.code != 1 || !strings.Contains(r.errOut, "stays on your local HEAD") {
		t.Fatalf("push to a remote that refuses it: exit %d\n%s", r.code, r.errOut)
	}
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}
	return gitRun(t, f.Dir, "rev-parse", "HEAD")
}

// A rerun of apply --push after a failed push finds nothing to commit and
// pushes the promotion the first run left on the local HEAD: directly
// when the remote has not moved, rebuilt on the new tip when it has.
func TestApplyPushesPendingPromotion(t *testing.T) {
	for _, moved := range []bool{false, true} {
		name := map[bool]string{false: "remote unchanged", true: "remote moved"}[moved]
		t.Run(name, func(t *testing.T) {
			f := newFleet(t)
			local := failPush(t, f)
			if moved {
				other := f.clone(t, "other", "Other Pipeline")
				editAndPush(t, other, "envs/preprod/common.yaml", "logLevel: debug", "logLevel: warn", "tune preprod logging")
			}
			theirs := gitRun(t, f.Remote, "rev-parse", "main")

			r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push")
			if r.code != 0 {
				t.Fatalf("rerun: exit %d\n%s", r.code, r.errOut)
			}
			if !strings.Contains(r.out, "already up to date") || !strings.Contains(r.out, "an earlier run committed but did not push") {
				t.Errorf("rerun output:\n%s", r.out)
			}
			remote := gitRun(t, f.Remote, "rev-parse", "main")
			if head := gitRun(t, f.Dir, "rev-parse", "HEAD"); head != remote {
				t.Errorf("local HEAD %s, remote main %s", head, remote)
			}
			if parent := gitRun(t, f.Remote, "rev-parse", "main~1"); parent != theirs {
				t.Errorf("pushed commit's parent %s, want the remote tip %s", parent, theirs)
			}
			if !moved && remote != local {
				t.Errorf("remote main %s, want the pending commit %s itself", remote, local)
			}
			if files := gitRun(t, f.Remote, "diff", "--name-only", "main~1", "main"); files != "argocd/preprod/app-gateway.yaml\nargocd/preprod/appset-nodes.yaml\nversions/preprod.yaml" {
				t.Errorf("pushed commit changes:\n%s", files)
			}
			if st := gitRun(t, f.Dir, "status", "--porcelain"); st != "" {
				t.Errorf("work tree not in step with HEAD:\n%s", st)
			}

			// Now everything is on the remote: a third run pushes nothing.
			r = f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push", "--output", "json")
			if res := decodeResult(t, r); r.code != 0 || !res.UpToDate || res.Pushed {
				t.Errorf("third run: exit %d, %+v", r.code, res)
			}
		})
	}
}

// Local commits of the user's own on top of the unpushed promotion are
// not pushed behind their back: the rerun names the situation and how to
// push, and the remote does not move.
func TestApplyLeavesOtherLocalCommits(t *testing.T) {
	f := newFleet(t)
	failPush(t, f)
	f.commitFile(t, "NOTES.md", "local notes\n", "docs: local notes")
	before := gitRun(t, f.Remote, "rev-parse", "main")
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push")
	if r.code != 1 || !strings.Contains(r.errOut, "git push origin HEAD:main") {
		t.Fatalf("exit %d, want 1 and a hint to push by hand\n%s", r.code, r.errOut)
	}
	if got := gitRun(t, f.Remote, "rev-parse", "main"); got != before {
		t.Errorf("remote main moved to %s", got)
	}
}

// A local branch ahead of the remote with commits of its own, while the
// remote already holds every promoted value: nothing to push for us, and
// not an error.
func TestApplyUpToDateWithOtherLocalCommits(t *testing.T) {
	f := newFleet(t)
	if r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push"); r.code != 0 {
		t.Fatalf("first apply: exit %d\n%s", r.code, r.errOut)
	}
	f.commitFile(t, "NOTES.md", "local notes\n", "docs: local notes")
	before := gitRun(t, f.Remote, "rev-parse", "main")
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push")
	if r.code != 0 || !strings.Contains(r.out, "already up to date") {
		t.Fatalf("exit %d, want 0 and up to date\n%s%s", r.code, r.out, r.errOut)
	}
	if got := gitRun(t, f.Remote, "rev-parse", "main"); got != before {
		t.Errorf("remote main moved to %s: local commits pushed", got)
	}
}

// An unpushed promotion whose source env the remote has moved since is
// not pushed as it is: the rerun refuses, names the field and the two
// ways out for a commit a pull cannot fast-forward; --source-rev HEAD then
// pushes it, rebuilt on the remote tip.
func TestPendingPromotionWithStaleSource(t *testing.T) {
	f := newFleet(t)
	local := failPush(t, f)
	other := f.clone(t, "other", "Other Pipeline")
	editAndPush(t, other, "versions/qa.yaml", `imageTag: "v3.2.0"`, `imageTag: "v3.3.0"`, "pin api v3.3.0")
	theirs := gitRun(t, f.Remote, "rev-parse", "main")

	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push")
	if r.code != 1 {
		t.Fatalf("rerun: exit %d, want 1\n%s", r.code, r.errOut)
	}
	for _, want := range []string{"ledger-node.api.imageTag: local v3.2.0, origin/main v3.3.0", "git reset --keep origin/main", "--source-rev HEAD"} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.errOut)
		}
	}
	if got := gitRun(t, f.Remote, "rev-parse", "main"); got != theirs {
		t.Errorf("remote moved to %s", got)
	}
	if got := gitRun(t, f.Dir, "rev-parse", "HEAD"); got != local {
		t.Errorf("local HEAD moved from the pending %s to %s", local, got)
	}

	r = f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push", "--source-rev", "HEAD")
	if r.code != 0 {
		t.Fatalf("with --source-rev HEAD: exit %d\n%s", r.code, r.errOut)
	}
	if parent := gitRun(t, f.Remote, "rev-parse", "main^1"); parent != theirs {
		t.Errorf("pushed on %s, want the remote tip %s", parent, theirs)
	}
	if got := gitRun(t, f.Remote, "show", "main:versions/preprod.yaml"); !strings.Contains(got, `imageTag: "v3.2.0"`) {
		t.Errorf("preprod does not carry the local v3.2.0:\n%s", got)
	}
}
