package git

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

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

// Recovery says what Recover repaired.
type Recovery struct {
	Op string // the interrupted operation: "move", "fetch" or "push"
	// Finished: HEAD had moved, and the work tree and index were brought
	// in step with it. Otherwise whatever the operation had started was
	// rolled back (HEAD never moved).
	Finished bool
	Commit   string // move: the commit HEAD was moved to
}

// Recover repairs what a killed operation left: it removes that process's
// temporary files and lock files, and finishes an interrupted Move whose
// HEAD had moved (writing the new content where a file still holds the old
// or the new one; files edited since are left alone). It holds the journal
// while it works, so no other run of this tool writes meanwhile. It
// returns nil when there was no interrupted operation, and ErrBusy while
// the journal's owner runs.
func (r *Repo) Recover() (*Recovery, error) {
	dead, claimed, err := r.claim()
	if err != nil {
		return nil, err
	}
	if err := r.publish(journal{Op: "recover"}); err != nil {
		if errors.Is(err, fs.ErrExist) {
			err = fmt.Errorf("%s appeared meanwhile: %w", r.journalPath(), ErrBusy)
		}
		return nil, err
	}
	defer r.end()
	r.removeDeadTemps()
	if dead == nil {
		return nil, nil
	}
	for _, l := range dead.Locks {
		step("unlink", l)
		os.Remove(l)
	}
	for _, f := range append(dead.Writes, dead.Deletes...) {
		r.removeTempsOf(f)
	}
	rec := &Recovery{Op: dead.Op, Commit: dead.To}
	if dead.Op == "move" {
		name, refPath, err := r.headTarget()
		if err != nil {
			return nil, err
		}
		head, err := r.readRefValue(name, refPath)
		if err != nil {
			return nil, err
		}
		if head.String() == dead.To {
			if err := r.finishMove(*dead); err != nil {
				return nil, fmt.Errorf("finishing the interrupted move to %s: %w", short(dead.To), err)
			}
			rec.Finished = true
		}
	}
	// Only now: killed above, the next Recover finds the claim again.
	step("unlink", claimed)
	os.Remove(claimed)
	return rec, nil
}

// claim takes over the journal of a dead process: it is renamed aside
// (only one claimant wins the rename) and returned with its new path. A
// journal claimed by a recovery that was itself killed is returned again.
// No journal: nil.
func (r *Repo) claim() (*journal, string, error) {
	path, claimed := r.journalPath(), r.journalPath()+".claimed"
	j, err := readJournal(path)
	if err != nil {
		return nil, "", err
	}
	if j != nil {
		if j.PID != os.Getpid() && processAlive(j.PID) {
			return nil, "", fmt.Errorf("pid %d holds %s: %w; wait for it to finish", j.PID, path, ErrBusy)
		}
		if j.Op == "recover" {
			// A recovery was killed: what it had claimed is still claimed.
			step("unlink", path)
			os.Remove(path)
		} else {
			step("rename", claimed)
			if err := os.Rename(path, claimed); errors.Is(err, fs.ErrNotExist) {
				return nil, "", fmt.Errorf("%s was taken meanwhile: %w", path, ErrBusy)
			} else if err != nil {
				return nil, "", fmt.Errorf("claiming %s: %w", path, err)
			}
			return j, claimed, nil
		}
	}
	// A claimed journal's recovery is dead: a live one would hold the
	// journal above.
	if j, err = readJournal(claimed); j == nil || err != nil {
		return nil, "", err
	}
	return j, claimed, nil
}

// readJournal reads a journal file; nil if there is none.
func readJournal(path string) (*journal, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		// Never published half-written (see publish): not ours to read.
		return nil, fmt.Errorf("%s is not a journal of this tool (%v); remove it if no promote runs", path, err)
	}
	return &j, nil
}

// finishMove writes To's content into each file of the move that still
// holds From's or To's content (or is missing), and removes deleted files
// that still hold From's.
func (r *Repo) finishMove(j journal) error {
	from, to := plumbing.NewHash(j.From), plumbing.NewHash(j.To)
	writes := map[string][]byte{}
	for _, f := range j.Writes {
		want, err := r.ReadFile(to, f)
		if err != nil {
			return err
		}
		old, _ := r.ReadFile(from, f)
		cur, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(f)))
		if err == nil && string(cur) != string(old) && string(cur) != string(want) {
			continue // edited by someone since: theirs to keep
		}
		writes[f] = want
	}
	var deletes []string
	for _, f := range j.Deletes {
		old, _ := r.ReadFile(from, f)
		cur, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(f)))
		if err == nil && string(cur) != string(old) {
			continue
		}
		deletes = append(deletes, f)
	}
	if len(writes) > 0 {
		if err := r.writeWorktree(writes); err != nil {
			return err
		}
	}
	return r.removeFromWorktree(deletes)
}

// removeTempsOf deletes the temporary files a killed work-tree write
// leaves next to f, so that no `git add -A` ever commits one.
func (r *Repo) removeTempsOf(f string) {
	full := filepath.Join(r.root, filepath.FromSlash(f))
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(full), "."+filepath.Base(full)+".tmp-*"))
	for _, t := range tmps {
		step("unlink", t)
		os.Remove(t)
	}
}

// tempTag marks the temporary files this process creates in the object
// store and the git directory, so that a later run can tell a dead
// process's leftovers from a live one's.
func tempTag() string { return fmt.Sprintf("gp%d_", os.Getpid()) }

// removeDeadTemps deletes temporary files of dead processes of this tool
// (objects/pack/tmp_*_gp<pid>_*, the journal's own temporary file), and
// pack indexes whose pack is missing: both pack writers publish the index
// first (go-git reads only packs that have one), so a kill between the two
// leaves an index that git and go-git ignore. Recover calls it while it
// holds the journal: no run of this tool is writing a pack meanwhile.
func (r *Repo) removeDeadTemps() {
	packDir := filepath.Join(r.commonDir, "objects", "pack")
	entries, _ := os.ReadDir(packDir)
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	for name := range names {
		switch {
		case strings.HasPrefix(name, "tmp_") && deadTemp(name):
			step("unlink", filepath.Join(packDir, name))
			os.Remove(filepath.Join(packDir, name))
		case strings.HasPrefix(name, "pack-") && strings.HasSuffix(name, ".idx") && !names[strings.TrimSuffix(name, ".idx")+".pack"]:
			step("unlink", filepath.Join(packDir, name))
			os.Remove(filepath.Join(packDir, name))
		}
	}
	tmps, _ := filepath.Glob(r.journalPath() + ".tmp-*")
	for _, t := range tmps {
		var pid int
		if _, err := fmt.Sscanf(filepath.Ext(t), ".tmp-%d", &pid); err == nil && pid != os.Getpid() && !processAlive(pid) {
			step("unlink", t)
			os.Remove(t)
		}
	}
}

// deadTemp tells whether a tmp_*_gp<pid>_* name belongs to a dead process.
func deadTemp(name string) bool {
	_, rest, ok := strings.Cut(name, "_gp")
	if !ok {
		return false
	}
	var pid int
	if _, err := fmt.Sscanf(rest, "%d_", &pid); err != nil {
		return false
	}
	return pid != os.Getpid() && !processAlive(pid)
}

// processAlive reports whether pid runs; EPERM means it does, as another user.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
