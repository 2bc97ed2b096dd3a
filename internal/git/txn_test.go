package git

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// deadPID is the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// writeJournal plants the journal a killed process would have left.
func writeJournal(t *testing.T, r *Repo, j journal) {
	t.Helper()
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.journalPath(), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMoveSyncsAndDeletes: a move writes, adds and deletes the changed
// files and their index entries and leaves no journal; it refuses local
// edits in a file it would replace unless the caller checked them.
func TestMoveSyncsAndDeletes(t *testing.T) {
	dir := newRepo(t)
	old := revParse(t, dir, "HEAD")
	run(t, dir, "checkout", "-q", "-b", "other")
	writeFile(t, dir, "apps/web/values.yaml", "image:\n  tag: v2\n", 0o644)
	writeFile(t, dir, "apps/new/values.yaml", "n: 1\n", 0o644)
	run(t, dir, "rm", "-q", "envs/prod/apps/web/values-ext.yaml")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "next")
	next := revParse(t, dir, "HEAD")
	run(t, dir, "checkout", "-q", "main")

	r := openRepo(t, dir)
	if err := r.Move(Move{From: old, To: next}); err != nil {
		t.Fatalf("Move: %v", err)
	}
	if got := revParse(t, dir, "main"); got != next {
		t.Errorf("main %s, want %s", got, next)
	}
	if got := run(t, dir, "status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("status after the move:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "envs/prod/apps/web/values-ext.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deleted file still there: %v", err)
	}
	if _, err := os.Stat(r.journalPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left: %v", err)
	}

	writeFile(t, dir, "apps/web/values.yaml", "edited\n", 0o644)
	if err := r.Move(Move{From: next, To: old}); !errors.Is(err, ErrWouldOverwrite) {
		t.Fatalf("Move over an edited file: %v, want ErrWouldOverwrite", err)
	}
	if got := revParse(t, dir, "HEAD"); got != next {
		t.Errorf("refused move moved HEAD to %s", got)
	}
}

// TestRecoverFinishesMove: killed after HEAD moved, with a file half
// written and the index lock held, the next Recover writes the new
// content, rebuilds the index entries, removes the lock and the temporary
// file, and says so; an edit made since is kept.
func TestRecoverFinishesMove(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	old := revParse(t, dir, "HEAD")
	next := commitFiles(t, r, old, map[string]string{"apps/web/values.yaml": "image:\n  tag: v2\n", "apps/api/values.yaml": "image:\n  tag: v2\n"}, "next")
	if err := r.updateHead(old, next); err != nil {
		t.Fatal(err)
	}
	locks, _ := r.lockFiles()
	writeJournal(t, r, journal{PID: deadPID(t), Op: "move", From: old.String(), To: next.String(),
		Writes: []string{"apps/web/values.yaml", "apps/api/values.yaml"}, Locks: locks})
	writeFile(t, dir, ".git/index.lock", "", 0o644)
	writeFile(t, dir, "apps/web/.values.yaml.tmp-123", "image:\n  ta", 0o600)
	writeFile(t, dir, "apps/api/values.yaml", "mine\n", 0o644) // edited since: kept

	rec, err := openRepo(t, dir).Recover()
	if err != nil || rec == nil || !rec.Finished || rec.Commit != next.String() {
		t.Fatalf("Recover = %+v, %v", rec, err)
	}
	if got := run(t, dir, "status", "--porcelain", "--untracked-files=all"); got != "M apps/api/values.yaml" { // " M", trimmed: an unstaged edit
		t.Errorf("status after recovery: %q, want only the kept edit", got)
	}
	for _, p := range []string{".git/index.lock", "apps/web/.values.yaml.tmp-123", ".git/" + journalName, ".git/" + journalName + ".claimed"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", p, err)
		}
	}
	if rec, err := openRepo(t, dir).Recover(); rec != nil || err != nil {
		t.Errorf("second Recover = %+v, %v; want nothing to do", rec, err)
	}
}

// TestRecoverRollsBack: killed before HEAD moved, nothing is written; the
// locks and temporary files go.
func TestRecoverRollsBack(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	old := revParse(t, dir, "HEAD")
	next := commitFiles(t, r, old, map[string]string{"apps/web/values.yaml": "image:\n  tag: v2\n"}, "next")
	locks, _ := r.lockFiles()
	writeJournal(t, r, journal{PID: deadPID(t), Op: "move", From: old.String(), To: next.String(), Writes: []string{"apps/web/values.yaml"}, Locks: locks})
	writeFile(t, dir, ".git/refs/heads/main.lock", next.String()+"\n", 0o644)
	rec, err := r.Recover()
	if err != nil || rec == nil || rec.Finished {
		t.Fatalf("Recover = %+v, %v; want a roll-back", rec, err)
	}
	if got := revParse(t, dir, "HEAD"); got != old {
		t.Errorf("HEAD %s, want %s", got, old)
	}
	if got := run(t, dir, "status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("status: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git/refs/heads/main.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ref lock left: %v", err)
	}
}

// TestRecoverBusy: a live process's journal is never touched.
func TestRecoverBusy(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	live := exec.Command("sleep", "30")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	writeJournal(t, r, journal{PID: live.Process.Pid, Op: "fetch"})
	if _, err := r.Recover(); !errors.Is(err, ErrBusy) {
		t.Fatalf("Recover = %v, want ErrBusy", err)
	}
	if _, err := os.Stat(r.journalPath()); err != nil {
		t.Errorf("live journal removed: %v", err)
	}
}

// TestRecoverAfterKilledRecovery: a recovery killed after it claimed a
// journal leaves the claim and its own journal; the next one finishes the
// claimed move.
func TestRecoverAfterKilledRecovery(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	old := revParse(t, dir, "HEAD")
	next := commitFiles(t, r, old, map[string]string{"apps/web/values.yaml": "image:\n  tag: v2\n"}, "next")
	if err := r.updateHead(old, next); err != nil {
		t.Fatal(err)
	}
	claimed, _ := json.Marshal(journal{PID: deadPID(t), Op: "move", From: old.String(), To: next.String(), Writes: []string{"apps/web/values.yaml"}})
	writeFile(t, dir, ".git/"+journalName+".claimed", string(claimed), 0o644)
	writeJournal(t, r, journal{PID: deadPID(t), Op: "recover"})
	rec, err := r.Recover()
	if err != nil || rec == nil || !rec.Finished {
		t.Fatalf("Recover = %+v, %v", rec, err)
	}
	if got := run(t, dir, "status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("status: %q", got)
	}
}

// TestRecoverRemovesDeadTemps: a dead run's temporary pack files and a
// pack index whose pack never arrived are removed; a live run's are not.
func TestRecoverRemovesDeadTemps(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	pack := filepath.Join(dir, ".git", "objects", "pack")
	dead, mine := filepath.Join(pack, "tmp_pack_gp"+strconv.Itoa(deadPID(t))+"_1"), filepath.Join(pack, "tmp_pack_"+tempTag()+"1")
	orphan := filepath.Join(pack, "pack-"+plumbing.ZeroHash.String()+".idx")
	for _, p := range []string{dead, mine, orphan} {
		if err := os.WriteFile(p, []byte("x"), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Recover(); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{dead: false, mine: true, orphan: false} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
	run(t, dir, "fsck", "--strict", "--no-dangling")
}
