package git

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// Auth is how a push or fetch authenticates; nil for none.
type Auth = transport.AuthMethod

// ErrWouldOverwrite marks local edits in files a sync would replace.
var ErrWouldOverwrite = errors.New("local changes would be overwritten")

// CommitInfo is what messages say about a commit.
type CommitInfo struct {
	Tree    plumbing.Hash
	Parents []plumbing.Hash
	Author  Signature
	Subject string
}

// CommitInfo reads a commit's parents, author and subject line.
func (r *Repo) CommitInfo(h plumbing.Hash) (CommitInfo, error) {
	c, err := r.commit(h)
	if err != nil {
		return CommitInfo{}, err
	}
	subject, _, _ := strings.Cut(c.Message, "\n")
	return CommitInfo{Tree: c.TreeHash, Parents: c.ParentHashes, Author: Signature{Name: c.Author.Name, Email: c.Author.Email}, Subject: subject}, nil
}

// Changes lists what commit to changes against commit from: the new
// content of each written file and the deleted paths.
func (r *Repo) Changes(from, to plumbing.Hash) (writes map[string][]byte, deletes []string, err error) {
	return r.treeChanges(from, to)
}

// treeChanges lists the regular files added or modified (with their new
// content) and deleted between two commits.
func (r *Repo) treeChanges(from, to plumbing.Hash) (map[string][]byte, []string, error) {
	fc, tc, err := r.commitPair(from, to)
	if err != nil {
		return nil, nil, err
	}
	ft, err := fc.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("reading tree of %s: %w", from, err)
	}
	tt, err := tc.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("reading tree of %s: %w", to, err)
	}
	changes, err := object.DiffTree(ft, tt)
	if err != nil {
		return nil, nil, fmt.Errorf("comparing %s and %s: %w", from, to, err)
	}
	writes := map[string][]byte{}
	var deletes []string
	for _, ch := range changes {
		if ch.To.Name == "" {
			deletes = append(deletes, ch.From.Name)
			continue
		}
		if m := ch.To.TreeEntry.Mode; m != filemode.Regular && m != filemode.Executable {
			return nil, nil, fmt.Errorf("syncing %s: only regular files are supported", ch.To.Name)
		}
		f, err := tt.File(ch.To.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", ch.To.Name, err)
		}
		content, err := f.Contents()
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", ch.To.Name, err)
		}
		writes[ch.To.Name] = []byte(content)
	}
	return writes, deletes, nil
}

// removeFromWorktree deletes files and their index entries. Deletions only
// happen when a move catches up with the remote.
func (r *Repo) removeFromWorktree(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	return r.rewriteIndex(func(idx *index.Index) error {
		for _, p := range paths {
			if _, err := idx.Remove(p); err != nil && !errors.Is(err, index.ErrEntryNotFound) {
				return fmt.Errorf("removing %s from the index: %w", p, err)
			}
			full := filepath.Join(r.root, filepath.FromSlash(p))
			step("unlink", full)
			if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("removing %s: %w", p, err)
			}
		}
		return nil
	})
}

func mapKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
