package git

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// gitTree is a decoded tree object. It is never changed once built, so
// the goroutines of tree views share it without a lock; go-git's
// object.Tree builds its look-up maps on first use and cannot be shared.
type gitTree struct {
	entries []object.TreeEntry // in the object's order (git's)
	byName  map[string]int     // index into entries, for large trees
}

// tree returns the decoded tree h, from the repository's cache.
func (t *treeFS) tree(h plumbing.Hash) (*gitTree, error) {
	if tr, ok := t.r.trees.Load(h); ok {
		return tr.(*gitTree), nil
	}
	data, err := t.r.objectData(h, plumbing.TreeObject)
	if err != nil {
		return nil, err
	}
	tr, err := parseTree(data)
	if err != nil {
		return nil, fmt.Errorf("reading tree %s: %w", h, err)
	}
	got, _ := t.r.trees.LoadOrStore(h, tr)
	return got.(*gitTree), nil
}

// entry returns the entry at slash path p as the tree records it: no
// symlink is followed, and a path through anything but a directory has
// none.
func (t *treeFS) entry(p string) (object.TreeEntry, bool, error) {
	tree, err := t.tree(t.root)
	if err != nil {
		return object.TreeEntry{}, false, err
	}
	parts := strings.Split(p, "/")
	for i, part := range parts {
		e, ok := tree.find(part)
		if !ok {
			return object.TreeEntry{}, false, nil
		}
		if i == len(parts)-1 {
			return e, true, nil
		}
		if e.Mode != filemode.Dir {
			return object.TreeEntry{}, false, nil
		}
		if tree, err = t.tree(e.Hash); err != nil {
			return object.TreeEntry{}, false, err
		}
	}
	return object.TreeEntry{}, false, nil
}

// smallTree is the size up to which find scans instead of building a map:
// most directories of a GitOps repository hold a few entries.
const smallTree = 16

var errBadTree = errors.New("malformed tree object")

// parseTree decodes a tree object's content: entries of "<octal mode>
// <name>\0<20-byte hash>". It accepts what go-git's decoder accepts
// (FuzzParseTree compares them).
func parseTree(data []byte) (*gitTree, error) {
	var entries []object.TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, errBadTree
		}
		mode, err := filemode.New(string(data[:sp]))
		if err != nil {
			return nil, fmt.Errorf("%w: mode %q", errBadTree, data[:sp])
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul <= 0 || len(data)-nul-1 < len(plumbing.Hash{}) {
			return nil, errBadTree // no name, or a short hash
		}
		e := object.TreeEntry{Name: string(data[:nul]), Mode: canonicalMode(mode)}
		data = data[nul+1:]
		data = data[copy(e.Hash[:], data):]
		entries = append(entries, e)
	}
	t := &gitTree{entries: entries}
	if len(entries) > smallTree {
		t.byName = make(map[string]int, len(entries))
		for i, e := range entries {
			if _, seen := t.byName[e.Name]; !seen {
				t.byName[e.Name] = i // the first of a repeated name, as a scan finds it
			}
		}
	}
	return t, nil
}

// find returns the entry called name.
func (t *gitTree) find(name string) (object.TreeEntry, bool) {
	if t.byName != nil {
		i, ok := t.byName[name]
		if !ok {
			return object.TreeEntry{}, false
		}
		return t.entries[i], true
	}
	for _, e := range t.entries {
		if e.Name == name {
			return e, true
		}
	}
	return object.TreeEntry{}, false
}

// canonicalMode is the mode git reads an entry's as: the file type, and
// for a file only whether it is executable; an unknown type is a
// submodule.
func canonicalMode(m filemode.FileMode) filemode.FileMode {
	switch m & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if m&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	default:
		return filemode.Submodule
	}
}
