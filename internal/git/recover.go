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
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

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
	if dead == nil && len(r.deadTemps()) == 0 {
		// Nothing to repair, which is every run but one after a kill: no
		// need to hold the journal for a look that changes nothing.
		return nil, nil
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
	writes, kept := map[string][]byte{}, map[string]stat{}
	for _, f := range j.Writes {
		want, err := r.ReadFile(to, f)
		if err != nil {
			return err
		}
		old, _ := r.ReadFile(from, f)
		cur, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(f)))
		if err == nil && string(cur) != string(old) && string(cur) != string(want) {
			// Edited by someone since: theirs to keep. Its index entry
			// still follows HEAD, so the edit shows as an edit of the new
			// content rather than a staged revert of it.
			if kept[f], err = r.unstatted(to, f, want); err != nil {
				return err
			}
			continue
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
	if len(kept) > 0 {
		if err := r.rewriteIndex(func(idx *index.Index) error { return updateIndex(idx, kept) }); err != nil {
			return err
		}
	}
	return r.removeFromWorktree(deletes)
}

// unstatted is an index entry for path holding content as in commit, with
// no stat data: git compares such an entry with the file by content.
func (r *Repo) unstatted(commit plumbing.Hash, path string, content []byte) (stat, error) {
	c, err := r.commit(commit)
	if err != nil {
		return stat{}, err
	}
	tree, err := c.Tree()
	if err != nil {
		return stat{}, err
	}
	e, err := tree.FindEntry(path)
	if err != nil {
		return stat{}, fmt.Errorf("reading %s at %s: %w", path, short(commit.String()), err)
	}
	return stat{mode: uint32(e.Mode), hash: plumbing.ComputeHash(plumbing.BlobObject, content)}, nil
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
// pack indexes whose pack is missing: a fetch publishes the index first
// (idxFS.Create; go-git reads only packs that have one), so a kill between
// the two leaves an index that git and go-git ignore. Recover calls it
// while it holds the journal: no run of this tool is fetching meanwhile.
func (r *Repo) removeDeadTemps() {
	for _, p := range r.deadTemps() {
		step("unlink", p)
		os.Remove(p)
	}
}

// deadTemps lists what removeDeadTemps removes: dead processes' temporary
// pack files and journals, and pack indexes without their pack.
func (r *Repo) deadTemps() []string {
	var out []string
	packDir := filepath.Join(r.commonDir, "objects", "pack")
	entries, _ := os.ReadDir(packDir)
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	for name := range names {
		switch {
		case strings.HasPrefix(name, "tmp_") && deadTemp(name):
			out = append(out, filepath.Join(packDir, name))
		case strings.HasPrefix(name, "pack-") && strings.HasSuffix(name, ".idx") && !names[strings.TrimSuffix(name, ".idx")+".pack"]:
			out = append(out, filepath.Join(packDir, name))
		}
	}
	tmps, _ := filepath.Glob(r.journalPath() + ".tmp-*")
	for _, t := range tmps {
		var pid int
		if _, err := fmt.Sscanf(filepath.Ext(t), ".tmp-%d", &pid); err == nil && pid != os.Getpid() && !processAlive(pid) {
			out = append(out, t)
		}
	}
	return out
}

// deadTemp tells whether a tmp_*_gp<pid>_* name belongs to a dead process.
func deadTemp(name string) bool {
	_, rest, ok := strings.Cut(name, "_gp")
	return ok && pidEnded(rest)
}

// pidEnded tells whether rest, <pid>_..., names a process that has ended
// (not this one).
func pidEnded(rest string) bool {
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
