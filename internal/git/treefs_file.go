package git

import (
	"io"
	"io/fs"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Lstat and ReadLink make treeFS an fs.ReadLinkFS.
func (t *treeFS) Lstat(name string) (fs.FileInfo, error) {
	n, err := t.resolve("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return t.stat(n)
}

func (t *treeFS) ReadLink(name string) (string, error) {
	n, err := t.resolve("readlink", name, false)
	if err != nil {
		return "", err
	}
	if n.mode != filemode.Symlink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	b, err := t.blob(n.hash)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(b), nil
}

func (t *treeFS) stat(n node) (fs.FileInfo, error) {
	if n.isDir() {
		return t.info(n, 0), nil
	}
	size, err := t.r.objectSize(n.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: n.name, Err: err}
	}
	return t.info(n, size), nil
}

func (t *treeFS) info(n node, size int64) fileInfo {
	return fileInfo{name: n.name, size: size, mode: fsMode(n.mode), mtime: t.mtime}
}

func fsMode(m filemode.FileMode) fs.FileMode {
	switch m {
	case filemode.Dir, filemode.Submodule:
		return fs.ModeDir | 0o755
	case filemode.Executable:
		return 0o755
	case filemode.Symlink:
		return fs.ModeSymlink | 0o777
	default:
		return 0o644
	}
}

type fileInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
}

func (fi fileInfo) Name() string       { return fi.name }
func (fi fileInfo) Size() int64        { return fi.size }
func (fi fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi fileInfo) ModTime() time.Time { return fi.mtime }
func (fi fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi fileInfo) Sys() any           { return nil }

// dirEntry defers reading the blob size until Info is called, so that
// fs.WalkDir over a large tree reads only tree objects.
type dirEntry struct {
	t *treeFS
	n node
}

func (d dirEntry) Name() string               { return d.n.name }
func (d dirEntry) IsDir() bool                { return d.n.isDir() }
func (d dirEntry) Type() fs.FileMode          { return fsMode(d.n.mode).Type() }
func (d dirEntry) Info() (fs.FileInfo, error) { return d.t.stat(d.n) }

type blobFile struct {
	rc   io.ReadCloser
	info fileInfo
}

func (f *blobFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *blobFile) Read(p []byte) (int, error) { return f.rc.Read(p) }
func (f *blobFile) Close() error               { return f.rc.Close() }

type dirFile struct {
	t       *treeFS
	n       node
	path    string
	entries []fs.DirEntry
	read    bool
	off     int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.t.info(d.n, 0), nil }
func (d *dirFile) Close() error               { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: errIsDir}
}

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		entries, err := d.t.readDir(d.path, d.n)
		if err != nil {
			return nil, err
		}
		d.entries, d.read = entries, true
	}
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.off += n
	return rest[:n], nil
}

var _ interface {
	fs.ReadFileFS
	fs.ReadDirFS
	fs.StatFS
	fs.ReadLinkFS
} = (*treeFS)(nil)
