package promote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
)

// journalName is written in the git dir between moving HEAD and finishing
// the work tree. If apply is killed in between, the next apply finds it
// and completes the work tree, so nobody is left with a stale file that
// silently reverts the promotion.
const journalName = "gitops-promote.journal"

type journal struct {
	PID    int      `json:"pid"`
	Base   string   `json:"base"`
	Commit string   `json:"commit"`
	Files  []string `json:"files"`
	Locks  []string `json:"locks"` // lock files this run may hold
}

func (a *Apply) journalPath() string { return filepath.Join(a.Repo.GitDir(), journalName) }

func (a *Apply) writeJournal(base, commit plumbing.Hash, files []string) error {
	locks, err := a.Repo.LockFiles()
	if err != nil {
		return err
	}
	data, _ := json.Marshal(journal{PID: os.Getpid(), Base: base.String(), Commit: commit.String(), Files: files, Locks: locks})
	tmp := a.journalPath() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", journalName, err)
	}
	return os.Rename(tmp, a.journalPath())
}

func (a *Apply) clearJournal() { os.Remove(a.journalPath()) }

// recoverInterrupted finishes an apply that was killed after it moved HEAD:
// it removes that run's stale locks and writes the promoted content of each
// file that still holds the old (or the new) content; files someone edited
// since are left alone.
func (a *Apply) recoverInterrupted() error {
	data, err := os.ReadFile(a.journalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var j journal
	if err != nil || json.Unmarshal(data, &j) != nil {
		a.clearJournal()
		return nil
	}
	if j.PID != os.Getpid() && processAlive(j.PID) {
		return fmt.Errorf("another promote (pid %d) is applying in this repository; wait for it to finish", j.PID)
	}
	for _, l := range j.Locks {
		os.Remove(l)
	}
	a.removeTempFiles(j.Files)
	head, err := a.Repo.Head()
	if err != nil {
		return err
	}
	if head.Hash.String() == j.Commit {
		if err := a.finishWorktree(j); err != nil {
			return fmt.Errorf("finishing the interrupted promotion %s: %w", j.Commit[:12], err)
		}
		a.log().Warn("finished the work tree of an interrupted apply", "commit", j.Commit[:12])
	}
	a.clearJournal()
	return nil
}

func (a *Apply) finishWorktree(j journal) error {
	base, commit := plumbing.NewHash(j.Base), plumbing.NewHash(j.Commit)
	writes := map[string][]byte{}
	for _, f := range j.Files {
		want, err := a.Repo.ReadFile(commit, f)
		if err != nil {
			return err
		}
		old, _ := a.Repo.ReadFile(base, f)
		cur, err := os.ReadFile(filepath.Join(a.Repo.Root(), filepath.FromSlash(f)))
		if err == nil && !bytes.Equal(cur, old) && !bytes.Equal(cur, want) {
			continue // edited by someone since: theirs to keep
		}
		writes[f] = want
	}
	if len(writes) == 0 {
		return nil
	}
	return a.Repo.WriteWorktree(writes)
}

// removeTempFiles deletes the temporary files a killed work-tree write
// leaves next to the files it replaces, so that no `git add -A` ever
// commits one.
func (a *Apply) removeTempFiles(files []string) {
	for _, f := range files {
		full := filepath.Join(a.Repo.Root(), filepath.FromSlash(f))
		tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(full), "."+filepath.Base(full)+".tmp-*"))
		for _, t := range tmps {
			os.Remove(t)
		}
	}
}

// processAlive reports whether pid runs; EPERM means it does, as another user.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
