//go:build crashtest

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// killIterations is how many applies get a SIGKILL; each costs about
// 0.3 s, most of it git CLI checks.
const killIterations = 30

// journalFile is where apply journals between moving HEAD and finishing
// the work tree (internal/promote/journal.go).
const journalFile = "gitops-promote.journal"

var applyArgs = []string{"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check"}

// promotion is the reference outcome of an uninterrupted apply.
type promotion struct {
	base, tree, message string
	old, new            map[string]string // the touched files' content before and after
}

// TestKillDuringApply is the issue's "kill -9 at any point of apply leaves
// the branch either without the promotion or with all of it, and no
// half-written file": SIGKILL at delays spread over a whole run (from
// before main starts to after it exits), check what is on disk, then
// check that the next apply finishes the job.
func TestKillDuringApply(t *testing.T) {
	f := newFleet(t)
	proto := f.Dir
	ref := reference(t, proto)
	m := measureApply(t, proto)
	t.Logf("uninterrupted apply: %v; journal from %v to %v", m.total, m.journal, m.cleared)

	states := map[string]int{}
	defer func() { t.Logf("where the kills landed (state: iterations): %v", states) }()
	failed := 0
	for i := range killIterations {
		delay := killDelay(i, m)
		ok := t.Run(fmt.Sprintf("kill%02d", i), func(t *testing.T) {
			dir := copyRepo(t, proto, "repo")
			cmd, _, _ := promoteCmd(t, dir, processEnv(t), applyArgs...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay)
			cmd.Process.Kill() // SIGKILL; an error only means it already exited
			// Wait reaps it: a zombie would still look alive to the
			// journal's pid check.
			cmd.Wait()

			state := checkKilled(t, dir, ref)
			states[state]++
			checkRecovers(t, dir, ref, state)
			if t.Failed() {
				t.Logf("killed after %v in state %q", delay, state)
			}
		})
		if !ok {
			if failed++; failed == 3 {
				t.Fatalf("stopping after %d failed iterations", failed)
			}
		}
	}
}

// reference applies once, uninterrupted, in a copy of proto.
func reference(t *testing.T, proto string) promotion {
	t.Helper()
	dir := copyRepo(t, proto, "reference")
	base := gitRun(t, dir, "rev-parse", "HEAD")
	if r := runPromote(t, dir, processEnv(t), applyArgs...); r.code != 0 {
		t.Fatalf("reference apply: exit %d: %s", r.code, r.errOut)
	}
	p := promotion{base: base, tree: gitRun(t, dir, "rev-parse", "HEAD^{tree}"),
		message: gitRun(t, dir, "log", "-1", "--format=%B"), old: map[string]string{}, new: map[string]string{}}
	for _, file := range strings.Fields(gitRun(t, dir, "diff", "--name-only", base, "HEAD")) {
		p.old[file] = gitRun(t, dir, "cat-file", "blob", base+":"+file)
		p.new[file] = gitRun(t, dir, "cat-file", "blob", "HEAD:"+file)
	}
	if len(p.new) != 3 {
		t.Fatalf("reference promotion touches %d files, want 3: %v", len(p.new), p.new)
	}
	return p
}

// copyRepo copies a prepared repository with cp -a, which keeps the
// index's stat data valid and is much faster than a fresh clone.
func copyRepo(t *testing.T, src, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v: %s", err, out)
	}
	return dst
}

// checkKilled asserts the all-or-nothing property right after the kill
// and names the state the kill left behind.
func checkKilled(t *testing.T, dir string, ref promotion) string {
	t.Helper()
	head := gitRun(t, dir, "rev-parse", "HEAD")
	moved := head != ref.base
	if moved {
		// HEAD has the whole promotion, as one commit on base.
		if parents := gitRun(t, dir, "log", "-1", "--format=%P"); parents != ref.base {
			t.Errorf("HEAD %s has parents %q, want exactly the base %s", head, parents, ref.base)
		}
		if tree := gitRun(t, dir, "rev-parse", "HEAD^{tree}"); tree != ref.tree {
			t.Errorf("HEAD tree %s differs from the full promotion %s:\n%s", tree, ref.tree,
				gitRun(t, dir, "diff", "--stat", ref.base, "HEAD"))
		}
	}
	// Each touched file holds its old or its new content, never a mix.
	promoted := 0
	for file, want := range ref.new {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
		switch got := strings.TrimSuffix(string(data), "\n"); {
		case err != nil:
			t.Errorf("%s: %v", file, err)
		case got == want:
			promoted++
		case got != ref.old[file]:
			t.Errorf("%s is neither the old nor the new content:\n%s", file, data)
		}
	}
	// No other tracked file changed.
	for _, file := range strings.Fields(gitRun(t, dir, "diff", "--name-only", ref.base)) {
		if _, ok := ref.new[file]; !ok {
			t.Errorf("%s changed, but the promotion does not touch it", file)
		}
	}
	if !moved && promoted > 0 {
		t.Errorf("%d work-tree files promoted while HEAD is still the base", promoted)
	}
	if fsck := gitRun(t, dir, "fsck", "--strict", "--no-dangling", "--no-progress"); fsck != "" {
		t.Errorf("git fsck --strict: %s", fsck)
	}
	_, err := os.Stat(filepath.Join(dir, ".git", journalFile))
	journal := err == nil
	switch {
	case !moved && !journal:
		return "before the journal"
	case !moved:
		return "journal written, HEAD not moved"
	case journal:
		return fmt.Sprintf("HEAD moved, %d/3 files written", promoted)
	case promoted != 3:
		t.Errorf("apply finished (journal cleared) with %d of 3 files promoted", promoted)
	}
	return "done"
}

// checkRecovers runs apply again: it must succeed and leave exactly the
// full promotion, one commit on base, with a clean status.
func checkRecovers(t *testing.T, dir string, ref promotion, state string) {
	t.Helper()
	r := runPromote(t, dir, processEnv(t), applyArgs...)
	if r.code != 0 {
		t.Errorf("apply after the kill (%s): exit %d\nstdout: %s\nstderr: %s", state, r.code, r.out, r.errOut)
		return
	}
	if got := gitRun(t, dir, "rev-list", "--parents", ref.base+"..HEAD"); len(strings.Fields(got)) != 2 {
		t.Errorf("want one commit on base, got rev-list --parents:\n%s", got)
	}
	if tree := gitRun(t, dir, "rev-parse", "HEAD^{tree}"); tree != ref.tree {
		t.Errorf("HEAD tree %s, want the full promotion %s", tree, ref.tree)
	}
	if msg := gitRun(t, dir, "log", "-1", "--format=%B"); msg != ref.message {
		t.Errorf("commit message:\n%s", cmp.Diff(ref.message, msg))
	}
	if st := gitRun(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("status after recovery (%s) not clean:\n%s", state, st)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".git", "*.lock"))
	refLocks, _ := filepath.Glob(filepath.Join(dir, ".git", "refs", "heads", "*.lock"))
	if l := slices.Concat(leftovers, refLocks); len(l) > 0 {
		t.Errorf("lock files left after recovery: %v", l)
	}
	if strings.HasPrefix(state, "HEAD moved") && !strings.Contains(r.errOut, "finished the work tree of an interrupted run") {
		t.Errorf("recovery from %q did not report finishing the work tree; stderr: %s", state, r.errOut)
	}
}
