package git

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
)

// packs returns the repository's pack reader, opened on first use.
func (r *Repo) packs() *packReader {
	r.packsMu.Lock()
	defer r.packsMu.Unlock()
	if r.packReader == nil {
		r.packReader = openPacks(filepath.Join(r.commonDir, "objects"))
	}
	return r.packReader
}

// packWritten makes a pack this process wrote readable by the pack
// reader if it is open (one opened later finds the pack on disk).
func (r *Repo) packWritten(idx, data []byte) {
	r.packsMu.Lock()
	defer r.packsMu.Unlock()
	if r.packReader != nil {
		r.packReader.add(idx, data)
	}
}

// EncodedObject reads packed objects with the pack reader, the rest with
// go-git.
func (s refStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, ok, err := s.r.packedObject(h, t)
	if err != nil {
		return nil, err
	}
	if !ok {
		return s.Storage.EncodedObject(t, h)
	}
	return &readObject{h: h, o: o}, nil
}

// readObject is a packed object as go-git's decoders take it: its hash
// known (a MemoryObject would hash its content again, with collision
// detection, for every blob decoded) and its content shared read-only
// with the cache.
type readObject struct {
	h plumbing.Hash
	o packedObject
}

func (r *readObject) Hash() plumbing.Hash         { return r.h }
func (r *readObject) Type() plumbing.ObjectType   { return r.o.typ }
func (r *readObject) SetType(plumbing.ObjectType) {}
func (r *readObject) Size() int64                 { return int64(len(r.o.data)) }
func (r *readObject) SetSize(int64)               {}
func (r *readObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(r.o.data)), nil
}
func (r *readObject) Writer() (io.WriteCloser, error) { return nil, errReadOnlyObject }

var errReadOnlyObject = errors.New("a packed object is read-only")

// EncodedObjectSize is EncodedObject's size, from the pack reader's
// headers where it can (see packReader.size).
func (s refStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	size, ok, err := s.r.packs().size(h)
	if err != nil {
		return 0, err
	}
	if !ok {
		return s.Storage.EncodedObjectSize(h)
	}
	return size, nil
}
