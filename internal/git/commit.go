package git

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Signature is a commit author or committer.
type Signature struct{ Name, Email string }

// CommitFiles writes a commit on top of parent (zero hash: a root commit)
// in which each path in files has the given content. Only the trees on
// those paths are rebuilt; everything else is shared with parent. Existing
// entries keep their mode (executable stays executable); new files are
// 100644. It returns ErrNoChanges when the result equals parent's tree.
// Nothing outside the object store is touched: no ref, index or work tree.
func (r *Repo) CommitFiles(parent plumbing.Hash, files map[string][]byte, msg string, author, committer Signature, when time.Time) (plumbing.Hash, error) {
	return r.CommitFilesOnto(parent, nil, files, msg, author, committer, when)
}

// CommitFilesOnto is CommitFiles with extra parents after the first: the
// tree is still parent's tree plus files. A rebuilt merge request branch
// takes its previous tip as second parent, so that updating it is a
// fast-forward and never needs a force push.
func (r *Repo) CommitFilesOnto(parent plumbing.Hash, extra []plumbing.Hash, files map[string][]byte, msg string, author, committer Signature, when time.Time) (plumbing.Hash, error) {
	if len(files) == 0 {
		return plumbing.ZeroHash, ErrNoChanges
	}
	root := &change{}
	for p, content := range files {
		if err := validPath(p); err != nil {
			return plumbing.ZeroHash, err
		}
		root.add(strings.Split(p, "/"), content)
	}
	var parents []plumbing.Hash
	var parentTree plumbing.Hash
	if !parent.IsZero() {
		c, err := r.commit(parent)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		parents, parentTree = append([]plumbing.Hash{parent}, extra...), c.TreeHash
	}
	tree, err := r.writeTree(parentTree, "", root)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if tree == parentTree {
		return plumbing.ZeroHash, ErrNoChanges
	}
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n" // git always ends messages with a newline
	}
	c := &object.Commit{
		Author:       object.Signature{Name: author.Name, Email: author.Email, When: when},
		Committer:    object.Signature{Name: committer.Name, Email: committer.Email, When: when},
		Message:      msg,
		TreeHash:     tree,
		ParentHashes: parents,
	}
	h, err := r.store(c)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("writing commit: %w", err)
	}
	r.subjects.Store(h, subject(msg))
	return h, nil
}

// change is the set of new contents below one directory.
type change struct {
	files map[string][]byte
	dirs  map[string]*change
}

func (c *change) add(parts []string, content []byte) {
	if len(parts) == 1 {
		if c.files == nil {
			c.files = map[string][]byte{}
		}
		c.files[parts[0]] = content
		return
	}
	if c.dirs == nil {
		c.dirs = map[string]*change{}
	}
	sub := c.dirs[parts[0]]
	if sub == nil {
		sub = &change{}
		c.dirs[parts[0]] = sub
	}
	sub.add(parts[1:], content)
}

// writeTree applies ch to the tree base (zero: empty) and returns the new
// tree's hash. dir is the slash path of base, for error messages.
func (r *Repo) writeTree(base plumbing.Hash, dir string, ch *change) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	if !base.IsZero() {
		t, err := r.repo.TreeObject(base)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("reading tree %s: %w", dirName(dir), err)
		}
		entries = slices.Clone(t.Entries)
	}
	index := make(map[string]int, len(entries))
	for i, e := range entries {
		index[e.Name] = i
	}
	set := func(e object.TreeEntry) {
		if i, ok := index[e.Name]; ok {
			entries[i] = e
			return
		}
		index[e.Name] = len(entries)
		entries = append(entries, e)
	}
	for name, content := range ch.files {
		e, err := r.fileEntry(entries, index, dir, name, content)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		set(e)
	}
	for name, sub := range ch.dirs {
		if _, ok := ch.files[name]; ok {
			return plumbing.ZeroHash, fmt.Errorf("writing %s: path is both a file and a directory", joinPath(dir, name))
		}
		var subBase plumbing.Hash
		if i, ok := index[name]; ok {
			if entries[i].Mode != filemode.Dir {
				return plumbing.ZeroHash, fmt.Errorf("writing under %s: not a directory", joinPath(dir, name))
			}
			subBase = entries[i].Hash
		}
		h, err := r.writeTree(subBase, joinPath(dir, name), sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		set(object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	sortTreeEntries(entries)
	h, err := r.store(&object.Tree{Entries: entries})
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("writing tree %s: %w", dirName(dir), err)
	}
	return h, nil
}

// fileEntry writes content as a blob and returns its tree entry, keeping
// the mode of an existing regular or executable file.
func (r *Repo) fileEntry(entries []object.TreeEntry, index map[string]int, dir, name string, content []byte) (object.TreeEntry, error) {
	p := joinPath(dir, name)
	mode := filemode.Regular
	if i, ok := index[name]; ok {
		switch m := entries[i].Mode; m {
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			mode = m
		default:
			return object.TreeEntry{}, fmt.Errorf("writing %s: existing entry is not a regular file (mode %s)", p, m)
		}
	}
	h, err := r.writeBlob(content)
	if err != nil {
		return object.TreeEntry{}, fmt.Errorf("writing blob for %s: %w", p, err)
	}
	return object.TreeEntry{Name: name, Mode: mode, Hash: h}, nil
}

func (r *Repo) writeBlob(content []byte) (plumbing.Hash, error) {
	obj := r.repo.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(content); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return r.setObject(obj)
}

type encoder interface {
	Encode(plumbing.EncodedObject) error
}

func (r *Repo) store(o encoder) (plumbing.Hash, error) {
	obj := r.repo.Storer.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return r.setObject(obj)
}

// setObject writes obj as a loose object unless it exists, under the
// lock of go-git's object reads (objects.go).
func (r *Repo) setObject(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.repo.Storer.HasEncodedObject(obj.Hash()) == nil {
		return obj.Hash(), nil
	}
	return r.repo.Storer.SetEncodedObject(obj)
}

// sortTreeEntries orders entries as git does: by name, with a directory
// compared as if its name ended in "/". git fsck rejects other orders.
func sortTreeEntries(entries []object.TreeEntry) {
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(entries, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
}

// validPath rejects paths git would refuse in a tree.
func validPath(p string) error {
	if !fs.ValidPath(p) || p == "." {
		return fmt.Errorf("invalid path %q", p)
	}
	for _, part := range strings.Split(p, "/") {
		if strings.EqualFold(part, ".git") {
			return fmt.Errorf("invalid path %q: contains .git", p)
		}
	}
	return nil
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func dirName(dir string) string {
	if dir == "" {
		return "/"
	}
	return dir
}
