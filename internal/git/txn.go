package git

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// journalName is the one journal of every operation that moves HEAD, the
// index or work-tree files, or takes a lock in the repository (Move,
// Fetch, Push). It exists only while such an operation runs; if the
// process is killed, Recover finds it and finishes or rolls back.
const journalName = "gitops-promote.journal"

// ErrBusy means another live process holds the journal.
var ErrBusy = errors.New("another promote is working in this repository")

type journal struct {
	PID     int      `json:"pid"`
	Op      string   `json:"op"`              // "move", "fetch" or "push"
	Locks   []string `json:"locks,omitempty"` // lock files the operation may hold
	From    string   `json:"from,omitempty"`  // move: HEAD before
	To      string   `json:"to,omitempty"`    // move: HEAD after
	Writes  []string `json:"writes,omitempty"`
	Deletes []string `json:"deletes,omitempty"`
}

func (r *Repo) journalPath() string { return filepath.Join(r.gitDir, journalName) }

// begin publishes j before the operation touches anything. An
// interrupted operation's journal is recovered first; a live one's is
// ErrBusy.
func (r *Repo) begin(j journal) error {
	err := r.publish(j)
	if errors.Is(err, fs.ErrExist) {
		if _, err = r.Recover(); err == nil {
			err = r.publish(j)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s appeared meanwhile: %w", r.journalPath(), ErrBusy)
	}
	return err
}

// publish writes j to a file of its own and hard-links it into place, so
// the journal appears whole and only if there is none (fs.ErrExist).
func (r *Repo) publish(j journal) error {
	j.PID = os.Getpid()
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	path := r.journalPath()
	tmp := fmt.Sprintf("%s.tmp-%d", path, j.PID)
	step("write", tmp)
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", journalName, err)
	}
	step("link", path)
	err = os.Link(tmp, path)
	step("unlink", tmp)
	os.Remove(tmp)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("writing %s: %w", journalName, err)
	}
	return err
}

// end removes the journal: the operation is complete.
func (r *Repo) end() {
	step("unlink", r.journalPath())
	os.Remove(r.journalPath())
}

// Move is one move of HEAD with the index and the work tree following it.
type Move struct {
	From, To plumbing.Hash
	// Writes (path -> content) and Deletes are the files that differ
	// between From and To; nil Writes: computed from the two trees.
	Writes  map[string][]byte
	Deletes []string
	// Checked says the caller has verified that none of those files has
	// local changes; otherwise Move refuses such files (ErrWouldOverwrite).
	Checked bool
}

// Move moves HEAD (its branch, or HEAD itself when detached) from m.From to
// m.To with a compare-and-swap, then brings the changed work-tree files and
// their index entries in step, like a checkout that looks only at the
// changed paths. It is the one way anything here moves HEAD, the index or
// files: the journal is written first, so a run killed at any point is
// finished (HEAD moved) or rolled back (HEAD did not) by the next Recover.
func (r *Repo) Move(m Move) error {
	writes, deletes := m.Writes, m.Deletes
	if writes == nil {
		var err error
		if writes, deletes, err = r.treeChanges(m.From, m.To); err != nil {
			return err
		}
	}
	paths := append(mapKeys(writes), deletes...)
	for _, p := range paths {
		if err := validPath(p); err != nil {
			return err
		}
	}
	if !m.Checked {
		dirty, err := r.DirtyPaths(paths)
		if err != nil {
			return err
		}
		if len(dirty) > 0 {
			return fmt.Errorf("%s: %w", strings.Join(dirty, ", "), ErrWouldOverwrite)
		}
	}
	locks, err := r.lockFiles()
	if err != nil {
		return err
	}
	if err := r.begin(journal{Op: "move", Locks: locks, From: m.From.String(), To: m.To.String(),
		Writes: mapKeys(writes), Deletes: deletes}); err != nil {
		return err
	}
	if err := r.updateHead(m.From, m.To); err != nil {
		r.end()
		return err
	}
	// From here on the journal stays if anything fails: the next Recover
	// completes the work tree for the HEAD that has moved.
	if len(writes) > 0 {
		if err := r.writeWorktree(writes); err != nil {
			return err
		}
	}
	if err := r.removeFromWorktree(deletes); err != nil {
		return err
	}
	r.end()
	return nil
}
