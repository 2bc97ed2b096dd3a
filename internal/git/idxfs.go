package git

import (
	"os"
	"path"
	"strings"

	"github.com/go-git/go-billy/v5"
)

// idxFS is the git directory go-git writes through (fetched packs, loose
// objects), and makes those writes safe to kill: temporary files carry our
// pid for Recover, every step passes the fault hook, and a fetched pack's
// index is written to a temporary file and renamed into place (go-git
// writes it in place, and a kill there left a truncated index).
type idxFS struct{ billy.Filesystem }

func newIdxFS(fs billy.Filesystem) idxFS { return idxFS{fs} }

func (f idxFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		step("open-write", name)
	}
	return f.Filesystem.OpenFile(name, flag, perm)
}

// Create writes a new pack index through a temporary file that its Close
// renames into place, before go-git renames the pack: go-git fails on a
// pack without its index, while git and go-git ignore an index without
// its pack (which Recover removes).
func (f idxFS) Create(name string) (billy.File, error) {
	if !isPackFile(name, ".idx") {
		step("open-write", name)
		return f.Filesystem.Create(name)
	}
	tmp, err := f.TempFile(path.Dir(name), "tmp_idx_")
	if err != nil {
		return nil, err
	}
	return &renameOnClose{File: tmp, fs: f, dest: name}, nil
}

func (f idxFS) TempFile(dir, prefix string) (billy.File, error) {
	step("create", path.Join(dir, prefix))
	return f.Filesystem.TempFile(dir, prefix+tempTag())
}

func (f idxFS) Rename(from, to string) error {
	step("rename", to)
	return f.Filesystem.Rename(from, to)
}

func (f idxFS) Remove(name string) error {
	step("unlink", name)
	return f.Filesystem.Remove(name)
}

// Chmod keeps go-git's read-only packs and indexes read-only (it checks
// for the capability, which the embedded interface hides).
func (f idxFS) Chmod(name string, mode os.FileMode) error {
	if c, ok := f.Filesystem.(billy.Chmod); ok {
		return c.Chmod(name, mode)
	}
	return nil
}

// renameOnClose is a temporary file published under dest when closed.
type renameOnClose struct {
	billy.File
	fs   idxFS
	dest string
}

func (w *renameOnClose) Close() error {
	if err := w.File.Close(); err != nil {
		return err
	}
	return w.fs.Rename(w.File.Name(), w.dest)
}

func isPackFile(name, ext string) bool {
	dir, base := path.Split(name)
	return strings.HasSuffix(dir, "objects/pack/") && strings.HasPrefix(base, "pack-") && strings.HasSuffix(base, ext)
}
