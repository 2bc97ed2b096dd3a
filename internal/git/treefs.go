package git

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// maxSymlinkHops bounds symlink resolution, like the kernel's ELOOP limit.
const maxSymlinkHops = 40

var errIsDir = errors.New("is a directory")

// ReadFile returns the content of the file at slash path p in commit. A
// missing path gives an error wrapping fs.ErrNotExist.
func (r *Repo) ReadFile(commit plumbing.Hash, p string) ([]byte, error) {
	tfs, err := r.TreeFS(commit)
	if err != nil {
		return nil, err
	}
	b, err := fs.ReadFile(tfs, p)
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %w", p, commit, err)
	}
	return b, nil
}

// TreeFS returns a read-only view of commit's tree. Trees and blobs are
// read from the object store on demand, so it costs nothing up front even
// on large repositories. Symlinks are followed when they stay inside the
// tree; submodules appear as empty directories. Every file's ModTime is the
// commit's committer time. A view is safe for concurrent use.
func (r *Repo) TreeFS(commit plumbing.Hash) (fs.FS, error) {
	return r.treeView(commit)
}

func (r *Repo) treeView(commit plumbing.Hash) (*treeFS, error) {
	r.mu.Lock()
	c, err := r.commit(commit)
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	t := &treeFS{r: r, root: c.TreeHash, mtime: c.Committer.When}
	if _, err := t.tree(c.TreeHash); err != nil {
		return nil, fmt.Errorf("reading tree of %s: %w", commit, err)
	}
	return t, nil
}

// treeFS reads packed objects through the pack reader, which many
// goroutines may use at once (manifestdiff renders from one view in
// parallel; promote's plan and ordering checks read the same tree side by
// side), and only the rest through go-git under the repository's lock
// (objects.go).
type treeFS struct {
	r     *Repo
	root  plumbing.Hash
	mtime time.Time
}

// node is a resolved tree entry.
type node struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

func (n node) isDir() bool { return n.mode == filemode.Dir || n.mode == filemode.Submodule }

func (t *treeFS) resolve(op, name string, followLast bool) (node, error) {
	if !fs.ValidPath(name) {
		return node{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	p := name
	for range maxSymlinkHops {
		n, next, err := t.walk(p, followLast)
		if err != nil {
			return node{}, &fs.PathError{Op: op, Path: name, Err: err}
		}
		if next == "" {
			if n.name == "." {
				n.name = path.Base(name)
			}
			return n, nil
		}
		p = next
	}
	return node{}, &fs.PathError{Op: op, Path: name, Err: errors.New("too many levels of symbolic links")}
}

// walk looks p up component by component. On meeting a symlink it returns
// the path to continue with instead of a node. p is a valid fs path, so
// the directory holding a component is the prefix of p before it: every
// lookup of a run's value files and manifests passes here, and slicing p
// spares splitting and joining it.
func (t *treeFS) walk(p string, followLast bool) (node, string, error) {
	n := node{name: ".", mode: filemode.Dir, hash: t.root}
	if p == "." {
		return n, "", nil
	}
	tree, err := t.tree(t.root)
	if err != nil {
		return node{}, "", err
	}
	rest := p
	for {
		part, after, more := strings.Cut(rest, "/")
		e, ok := tree.find(part)
		if !ok {
			return node{}, "", fs.ErrNotExist
		}
		n = node{name: part, mode: e.Mode, hash: e.Hash}
		if e.Mode == filemode.Symlink && (more || followLast) {
			dir := "."
			if at := len(p) - len(rest); at > 0 {
				dir = p[:at-1]
			}
			next, err := t.followLink(dir, e.Hash, after)
			return node{}, next, err
		}
		if !more {
			return n, "", nil
		}
		if e.Mode != filemode.Dir {
			return node{}, "", fs.ErrNotExist
		}
		if tree, err = t.tree(e.Hash); err != nil {
			return node{}, "", err
		}
		rest = after
	}
}

// followLink is the path to go on with: link h's target, taken from dir
// (the directory holding the link), then rest ("" when the link was the
// last component). A target outside the tree does not exist.
func (t *treeFS) followLink(dir string, h plumbing.Hash, rest string) (string, error) {
	target, err := t.blob(h)
	if err != nil {
		return "", err
	}
	if path.IsAbs(string(target)) {
		return "", fs.ErrNotExist
	}
	next := path.Join(dir, string(target), rest)
	if next == ".." || strings.HasPrefix(next, "../") {
		return "", fs.ErrNotExist
	}
	return next, nil
}

// blob returns a copy of blob h's content: the pack reader's cache shares
// the original with every other reader.
func (t *treeFS) blob(h plumbing.Hash) ([]byte, error) {
	data, err := t.r.objectData(h, plumbing.BlobObject)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(data), nil
}

// Open, ReadFile, ReadDir and Stat make treeFS an fs.FS (and the three
// interfaces of fs); Lstat and ReadLink an fs.ReadLinkFS (treefs_file.go).
func (t *treeFS) Open(name string) (fs.File, error) {
	n, err := t.resolve("open", name, true)
	if err != nil {
		return nil, err
	}
	if n.isDir() {
		return &dirFile{t: t, n: n, path: name}, nil
	}
	data, err := t.blob(n.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &blobFile{rc: io.NopCloser(bytes.NewReader(data)), info: t.info(n, int64(len(data)))}, nil
}

// ContentID names the content of the file at name without reading it:
// its blob id, symlinks followed as ReadFile follows them, and the same
// errors. Within one repository equal ids mean equal content, so two
// revisions' inputs compare by id (argo.ContentIDFS).
func (t *treeFS) ContentID(name string) (string, error) {
	n, err := t.resolve("contentid", name, true)
	if err != nil {
		return "", err
	}
	if n.isDir() {
		return "", &fs.PathError{Op: "contentid", Path: name, Err: errIsDir}
	}
	return n.hash.String(), nil
}

func (t *treeFS) ReadFile(name string) ([]byte, error) {
	n, err := t.resolve("readfile", name, true)
	if err != nil {
		return nil, err
	}
	if n.isDir() {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errIsDir}
	}
	b, err := t.blob(n.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
	}
	return b, nil
}

func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := t.resolve("readdir", name, true)
	if err != nil {
		return nil, err
	}
	return t.readDir(name, n)
}

func (t *treeFS) readDir(name string, n node) ([]fs.DirEntry, error) {
	if !n.isDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	if n.mode == filemode.Submodule {
		return nil, nil
	}
	tree, err := t.tree(n.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	out := make([]fs.DirEntry, 0, len(tree.entries))
	for _, e := range tree.entries {
		out = append(out, dirEntry{t: t, n: node{name: e.Name, mode: e.Mode, hash: e.Hash}})
	}
	// Git orders a directory "a" as "a/", fs.ReadDir wants plain name order.
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

func (t *treeFS) Stat(name string) (fs.FileInfo, error) {
	n, err := t.resolve("stat", name, true)
	if err != nil {
		return nil, err
	}
	return t.stat(n)
}
