package git

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// DirtyPaths returns those of paths (slash paths of files) whose work tree
// or index content differs from HEAD's tree, including files deleted from
// the work tree and files present but not in HEAD (untracked or ignored).
// Only these paths are examined; content is hashed rather than trusting
// stat data, so the answer is exact. Not handled: core.fileMode=false and
// eol/clean filters (a converted file shows as dirty).
func (r *Repo) DirtyPaths(paths []string) ([]string, error) {
	headTree, err := r.headView()
	if err != nil {
		return nil, err
	}
	idx, err := r.readIndex()
	if err != nil {
		return nil, err
	}
	var dirty []string
	for _, p := range paths {
		if err := validPath(p); err != nil {
			return nil, err
		}
		var head *object.TreeEntry
		if headTree != nil {
			e, ok, err := headTree.entry(p)
			if err != nil {
				return nil, fmt.Errorf("checking %s: %w", p, err)
			}
			if ok {
				head = &e
			}
		}
		var staged []indexEntry
		for _, e := range stagedEntries(idx, p) {
			staged = append(staged, indexEntry{hash: e.Hash, mode: e.Mode, stage: int(e.Stage)})
		}
		d, err := r.isDirty(p, head, staged)
		if err != nil {
			return nil, err
		}
		if d {
			dirty = append(dirty, p)
		}
	}
	return dirty, nil
}

type indexEntry struct {
	hash  plumbing.Hash
	mode  filemode.FileMode
	stage int
}

func (r *Repo) isDirty(p string, head *object.TreeEntry, staged []indexEntry) (bool, error) {
	switch {
	case len(staged) > 1 || len(staged) == 1 && staged[0].stage != 0: // unmerged
		return true, nil
	case len(staged) == 1 && (head == nil || staged[0].hash != head.Hash || staged[0].mode != head.Mode):
		return true, nil
	case len(staged) == 0 && head != nil:
		return true, nil // staged deletion
	}
	mode, hash, err := hashWorktreeFile(filepath.Join(r.root, filepath.FromSlash(p)))
	if errors.Is(err, fs.ErrNotExist) {
		return head != nil, nil
	}
	if err != nil {
		return false, fmt.Errorf("checking %s: %w", p, err)
	}
	return head == nil || hash != head.Hash || mode != head.Mode, nil
}

// hashWorktreeFile returns the tree mode and blob hash git would record
// for the file at full.
func hashWorktreeFile(full string) (filemode.FileMode, plumbing.Hash, error) {
	fi, err := os.Lstat(full)
	if err != nil {
		return 0, plumbing.ZeroHash, err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(full)
		if err != nil {
			return 0, plumbing.ZeroHash, err
		}
		return filemode.Symlink, plumbing.ComputeHash(plumbing.BlobObject, []byte(target)), nil
	case fi.IsDir():
		return filemode.Dir, plumbing.ZeroHash, nil
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return 0, plumbing.ZeroHash, err
	}
	mode := filemode.Regular
	if fi.Mode()&0o111 != 0 {
		mode = filemode.Executable
	}
	return mode, plumbing.ComputeHash(plumbing.BlobObject, b), nil
}

// headView returns a view of HEAD's tree, nil on an unborn branch. It
// reads as tree views do (objects.go), so the dirty check can run beside
// other goroutines' views.
func (r *Repo) headView() (*treeFS, error) {
	head, err := r.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t, err := r.treeView(head.Hash)
	if err != nil {
		return nil, fmt.Errorf("reading tree of HEAD: %w", err)
	}
	return t, nil
}
