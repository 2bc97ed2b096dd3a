package git

import (
	"bytes"
	"errors"
	"os"
	"path"
	"strings"

	"github.com/go-git/go-billy/v5"
)

// idxFS hands go-git each pack index (.idx) as one in-memory file. go-git
// decodes an index with a 4-byte read per fan-out entry, name, CRC and
// offset, straight from the descriptor: a system call per field, 600 for a
// 110-object pack and 80,000 for a 20,000-file repository's. Reading the
// whole file at once and decoding from memory is the same bytes in one call.
//
// It is also the git directory go-git writes through (fetched packs, loose
// objects), and makes those writes safe to kill: temporary files carry our
// pid for Recover, every step passes the fault hook, and a fetched pack's
// index is written to a temporary file and renamed into place (go-git
// writes it in place, and a kill there left a truncated index).
type idxFS struct{ billy.Filesystem }

func newIdxFS(fs billy.Filesystem) idxFS { return idxFS{fs} }

func (f idxFS) Open(name string) (billy.File, error) {
	if !strings.HasSuffix(name, ".idx") {
		return f.Filesystem.Open(name)
	}
	return f.readAll(name)
}

func (f idxFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		step("open-write", name)
		return f.Filesystem.OpenFile(name, flag, perm)
	}
	if !strings.HasSuffix(name, ".idx") {
		return f.Filesystem.OpenFile(name, flag, perm)
	}
	return f.readAll(name)
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

func (f idxFS) readAll(name string) (billy.File, error) {
	src, err := f.Filesystem.Open(name)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	size := 0
	if st, err := f.Filesystem.Stat(name); err == nil {
		size = int(st.Size())
	}
	var buf bytes.Buffer
	buf.Grow(size + 1) // +1: ReadFrom stops without a second read at EOF
	if _, err := buf.ReadFrom(src); err != nil {
		return nil, err
	}
	return &memFile{name: src.Name(), Reader: bytes.NewReader(buf.Bytes())}, nil
}

// memFile is a read-only billy.File over bytes already read.
type memFile struct {
	name string
	*bytes.Reader
}

var errReadOnly = errors.New("read-only file")

func (m *memFile) Name() string              { return m.name }
func (m *memFile) Write([]byte) (int, error) { return 0, errReadOnly }
func (m *memFile) Truncate(int64) error      { return errReadOnly }
func (m *memFile) Close() error              { return nil }
func (m *memFile) Lock() error               { return nil }
func (m *memFile) Unlock() error             { return nil }
