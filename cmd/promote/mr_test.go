package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const promoteBranch = "promote/qa-to-preprod"

var applyMR = []string{"apply", "--from", "qa", "--to", "preprod", "--merge-request"}

// The promoted components and the charts they move to (qa -> preprod in
// examples/fleet): what a reviewer must see in the description.
var promoted = []string{"ledger-node.api", "ledger-node.worker", "gateway", "edge-gateway", "ledger-api", "ledger-worker"}

// Acceptance: two runs leave one open merge request whose branch is on the
// remote and whose description lists the promoted charts; the target
// branch, the local branch and the work tree are untouched; a run after a
// new commit on main rebuilds the branch on it without a forced push and
// updates the same merge request.
func TestApplyMergeRequest(t *testing.T) {
	m := newMRFleet(t)
	before := m.snapshot(t)

	r := m.runOK(t, applyMR...)
	tip1 := m.remoteRef(t, promoteBranch)
	if tip1 == "" {
		t.Fatalf("branch %s not on the remote; refs:\n%s", promoteBranch, gitRun(t, m.Remote, "show-ref"))
	}
	if p := gitRun(t, m.Remote, "rev-parse", tip1+"^1"); p != before.remote {
		t.Errorf("branch built on %s, want the remote main %s", p, before.remote)
	}
	files := gitRun(t, m.Remote, "diff", "--name-only", "main", tip1)
	if files != "argocd/preprod/app-gateway.yaml\nargocd/preprod/appset-nodes.yaml\nversions/preprod.yaml" {
		t.Errorf("branch changes:\n%s", files)
	}
	checkMR(t, m.oneOpenMR(t), r, promoteBranch, "chore(preprod): promote versions from qa", promoted...)
	if after := m.snapshot(t); after != before {
		t.Errorf("target branch, local branch or work tree changed: %+v -> %+v", before, after)
	}

	// Same main, same promotion: nothing to push, nothing to open.
	r = m.runOK(t, applyMR...)
	if tip := m.remoteRef(t, promoteBranch); tip != tip1 {
		t.Errorf("unchanged rerun moved the branch %s -> %s", tip1, tip)
	}
	checkMR(t, m.oneOpenMR(t), r, promoteBranch, "chore(preprod): promote versions from qa", promoted...)

	newMain := m.landOnMain(t)
	r = m.runOK(t, applyMR...)
	tip3 := m.remoteRef(t, promoteBranch)
	if p := gitRun(t, m.Remote, "rev-parse", tip3+"^1"); p != newMain {
		t.Errorf("rebuilt branch's first parent %s, want the new main %s", p, newMain)
	}
	// receive.denyNonFastForwards already refuses a forced push; this says
	// why a failure would happen.
	gitRun(t, m.Remote, "merge-base", "--is-ancestor", tip1, tip3)
	mr := m.oneOpenMR(t)
	checkMR(t, mr, r, promoteBranch, "chore(preprod): promote versions from qa", promoted...)
	if !strings.Contains(mr.Description, newMain[:12]) {
		t.Errorf("description does not name the new base %s:\n%s", newMain[:12], mr.Description)
	}
	if got := m.remoteRef(t, "main"); got != newMain {
		t.Errorf("remote main moved to %s, want %s", got, newMain)
	}
	if after := m.snapshot(t); after.head != before.head || after.status != before.status {
		t.Errorf("local branch or work tree changed: %+v -> %+v", before, after)
	}
	if n := m.gl.Calls("POST mrs"); n != 1 {
		t.Errorf("created merge requests %d times, want 1", n)
	}
}

// pin --merge-request goes to pin/<env>-<8 hex>, named by the pinned
// values, so a rerun of the same pin finds its own merge request.
func TestPinMergeRequest(t *testing.T) {
	m := newMRFleet(t)
	before := m.snapshot(t)
	pin := []string{"pin", "--env", "qa", "ledger-node.worker.imageTag=v3.3.0", "--merge-request"}
	var branch string
	for range 2 {
		r := m.runOK(t, pin...)
		mr := m.oneOpenMR(t)
		branch = mr.SourceBranch
		if !regexp.MustCompile(`^pin/qa-[0-9a-f]{8}$`).MatchString(branch) {
			t.Fatalf("source branch %q, want pin/qa-<8 hex>", branch)
		}
		checkMR(t, mr, r, branch, "chore(qa): pin", "ledger-node.worker", "v3.3.0")
	}
	if tip := m.remoteRef(t, branch); tip == "" || gitRun(t, m.Remote, "rev-parse", tip+"^1") != before.remote {
		t.Errorf("branch %s is %q, want a commit on the remote main", branch, tip)
	}
	if after := m.snapshot(t); after != before {
		t.Errorf("target branch, local branch or work tree changed: %+v -> %+v", before, after)
	}
}

// When the target already holds every value (here: the promotion branch
// was merged by hand, outside GitLab), the run is up to date and closes
// the merge request that still proposes them, with a note saying why; a
// later run finds nothing to close.
func TestMergeRequestClosedWhenTargetHasValues(t *testing.T) {
	m := newMRFleet(t)
	m.runOK(t, applyMR...)
	mr := m.oneOpenMR(t)

	other := filepath.Join(t.TempDir(), "other")
	gitRun(t, filepath.Dir(other), "clone", "-q", "file://"+m.Remote, other)
	gitRun(t, other, "merge", "-q", "--no-edit", "origin/"+promoteBranch)
	gitRun(t, other, "push", "-q", "origin", "main")

	r := m.runOK(t, applyMR...)
	if !strings.Contains(r.out, "merge request closed") || !strings.Contains(r.out, mr.WebURL) {
		t.Errorf("stdout does not report closing %s:\n%s", mr.WebURL, r.out)
	}
	got := m.gl.MRs(mrProject)
	if len(got) != 1 || got[0].State != "closed" {
		t.Fatalf("merge requests after the run: %+v", got)
	}
	notes := m.gl.Notes(mrProject, mr.IID)
	if len(notes) != 1 || !strings.Contains(notes[0].Body, "already holds every value") {
		t.Errorf("closing note: %+v", notes)
	}

	writes := m.gl.Writes()
	m.runOK(t, applyMR...)
	if m.gl.Writes() != writes || len(m.gl.MRs(mrProject)) != 1 {
		t.Errorf("a rerun wrote to GitLab (%d -> %d writes) or opened a merge request", writes, m.gl.Writes())
	}
}
