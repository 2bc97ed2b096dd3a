package git

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// writeWorktree writes files (slash path -> content) into the work tree
// and records them in the index, so that after a matching commit `git
// status` is clean. Each file is written to a temporary file in its own
// directory, synced and renamed into place: readers see the old or the new
// content, never a mix. Existing files keep their permissions; new ones
// get 0644 and any missing directories. The index is locked with
// index.lock for the whole operation and replaced by rename, as git does.
// Only the touched entries are rewritten; the cache tree and other
// extensions that would go stale are dropped, and git rebuilds them.
func (r *Repo) writeWorktree(files map[string][]byte) error {
	paths := make([]string, 0, len(files))
	for p := range files {
		if err := validPath(p); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return r.rewriteIndex(func(idx *index.Index) error {
		// Refuse conflicted paths before touching the work tree.
		for _, p := range paths {
			if e := stagedEntries(idx, p); len(e) > 1 || len(e) == 1 && e[0].Stage != 0 {
				return fmt.Errorf("writing %s: path has unresolved merge conflicts", p)
			}
		}
		stats := make(map[string]stat, len(paths))
		for _, p := range paths {
			fi, err := r.writeWorktreeFile(p, files[p])
			if err != nil {
				return err
			}
			mode := filemode.Regular
			if fi.Mode()&0o111 != 0 {
				mode = filemode.Executable
			}
			stats[p] = statOf(fi, uint32(mode), plumbing.ComputeHash(plumbing.BlobObject, files[p]))
		}
		return updateIndex(idx, stats)
	})
}

// rewriteIndex holds index.lock while update changes the current index,
// then writes it to the lock and renames that over the index, as git
// does; on any error the lock is dropped and the index stays as it was.
// The cache tree and other optional extensions are not written (go-git's
// encoder writes none): git rebuilds them.
func (r *Repo) rewriteIndex(update func(idx *index.Index) error) (err error) {
	lock, err := lockIndex(filepath.Join(r.gitDir, "index"))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			lock.abort()
		}
	}()
	idx, err := r.readIndex()
	if err != nil {
		return err
	}
	if err := update(idx); err != nil {
		return err
	}
	step("write", lock.path)
	w := bufio.NewWriterSize(lock.f, 64<<10)
	if err := index.NewEncoder(w).Encode(idx); err != nil {
		return fmt.Errorf("writing index: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing index: %w", err)
	}
	return lock.commit()
}

// updateIndex sets each path of stats to stage 0 with the given stat
// data and hash, adding entries that do not exist.
func updateIndex(idx *index.Index, stats map[string]stat) error {
	for p, s := range stats {
		if err := setIndexEntry(idx, p, s); err != nil {
			return err
		}
	}
	return nil
}

func (r *Repo) writeWorktreeFile(p string, content []byte) (fs.FileInfo, error) {
	full := filepath.Join(r.root, filepath.FromSlash(p))
	mode := fs.FileMode(0o644)
	fi, err := os.Lstat(full)
	exists := err == nil
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("writing %s: not a regular file (%s)", p, fi.Mode().Type())
	case err == nil:
		mode = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("writing %s: %w", p, err)
	}
	if err := writeFileAtomic(full, content, mode, r.fsync, exists); err != nil {
		return nil, fmt.Errorf("writing %s: %w", p, err)
	}
	fi, err = os.Lstat(full)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", p, err)
	}
	return fi, nil
}

// writeFileAtomic replaces full with content via a temporary file in the
// same directory (synced first when sync is set), renamed over it, so
// that readers see the old or the new content, never a mix; it creates
// the directory when the file did not exist.
func writeFileAtomic(full string, content []byte, mode fs.FileMode, sync, exists bool) (err error) {
	dir := filepath.Dir(full)
	if !exists {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	step("create", full+".tmp")
	f, err := os.CreateTemp(dir, "."+filepath.Base(full)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			step("unlink", f.Name())
			os.Remove(f.Name())
		}
	}()
	step("write", f.Name())
	if _, err := f.Write(content); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	// Like git, the directory is not synced after the rename: that guards
	// against power loss, not against a killed process, and costs ~10 ms.
	step("rename", full)
	return os.Rename(f.Name(), full)
}

func setIndexEntry(idx *index.Index, p string, s stat) error {
	var e *index.Entry
	for _, cand := range idx.Entries {
		if cand.Name != p {
			continue
		}
		// Stage 0 is a merged entry; go-git's index.Merged constant is 1.
		if cand.Stage != 0 {
			return fmt.Errorf("updating index for %s: path has unresolved merge conflicts", p)
		}
		e = cand
	}
	if e == nil {
		e = idx.Add(p)
	}
	e.Hash, e.Mode, e.Size = s.hash, filemode.FileMode(s.mode), s.size
	e.CreatedAt = time.Unix(int64(s.ctimeSec), int64(s.ctimeNsec))
	e.ModifiedAt = time.Unix(int64(s.mtimeSec), int64(s.mtimeNsec))
	e.Dev, e.Inode, e.UID, e.GID = s.dev, s.ino, s.uid, s.gid
	e.IntentToAdd = false
	return nil
}

type indexLock struct {
	f          *os.File
	path, dest string
}

func lockIndex(dest string) (*indexLock, error) {
	path := dest + ".lock"
	step("create", path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("locking index: %s exists: another git process is running, or one crashed and the file must be removed", path)
	}
	if err != nil {
		return nil, fmt.Errorf("locking index: %w", err)
	}
	return &indexLock{f: f, path: path, dest: dest}, nil
}

func (l *indexLock) abort() {
	l.f.Close()
	step("unlink", l.path)
	os.Remove(l.path)
}

// commit renames the lock over the index, which also unlocks it. Like
// git (core.fsync does not cover the index by default) it does not
// fsync: the index is derived data that git repairs from the work tree.
func (l *indexLock) commit() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("writing index: %w", err)
	}
	step("rename", l.dest)
	if err := os.Rename(l.path, l.dest); err != nil {
		return fmt.Errorf("writing index: %w", err)
	}
	return nil
}
