package git

import "path/filepath"

// GitDir is the repository's git directory (worktrees/<name> for a linked
// work tree).
func (r *Repo) GitDir() string { return r.gitDir }

// LockFiles names the lock files UpdateHead and WriteWorktree create for
// HEAD's ref and the index. A caller that journals its work records them,
// so that the locks of a run killed mid-way can be recognised as stale.
func (r *Repo) LockFiles() ([]string, error) {
	_, refPath, err := r.headTarget()
	if err != nil {
		return nil, err
	}
	return []string{refPath + ".lock", filepath.Join(r.gitDir, "index.lock")}, nil
}
