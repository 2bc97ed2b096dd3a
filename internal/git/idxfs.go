package git

import (
	"bytes"
	"errors"
	"os"
	"strings"

	"github.com/go-git/go-billy/v5"
)

// idxFS hands go-git each pack index (.idx) as one in-memory file. go-git
// decodes an index with a 4-byte read per fan-out entry, name, CRC and
// offset, straight from the descriptor: a system call per field, 600 for a
// 110-object pack and 80,000 for a 20,000-file repository's. Reading the
// whole file at once and decoding from memory is the same bytes in one call.
type idxFS struct{ billy.Filesystem }

func (f idxFS) Open(name string) (billy.File, error) {
	if !strings.HasSuffix(name, ".idx") {
		return f.Filesystem.Open(name)
	}
	return f.readAll(name)
}

func (f idxFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if flag != os.O_RDONLY || !strings.HasSuffix(name, ".idx") {
		return f.Filesystem.OpenFile(name, flag, perm)
	}
	return f.readAll(name)
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
