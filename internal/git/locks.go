package git

import "path/filepath"

// GitDir is the repository's git directory (worktrees/<name> for a linked
// work tree).
func (r *Repo) GitDir() string { return r.gitDir }

// lockFiles names the lock files a Move creates for HEAD's ref and the
// index, for its journal: the locks of a run killed mid-way are then
// known to be stale.
func (r *Repo) lockFiles() ([]string, error) {
	_, refPath, err := r.headTarget()
	if err != nil {
		return nil, err
	}
	return []string{refPath + ".lock", filepath.Join(r.gitDir, "index.lock")}, nil
}
