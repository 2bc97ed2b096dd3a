package git

import (
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

// go-git's object storage is not safe for concurrent use (its open
// packfiles and caches live in unguarded maps), while the pack reader is.
// Tree views (and the dirty check, which walks one) read packed objects
// with the pack reader, with no lock, and the rest (loose objects, what the
// pack reader does not know) through go-git holding the repository's lock,
// as history walks do: only a go-git read serialises the goroutines.

// objectData returns the content of object h, which must be of type typ
// (a mismatch is plumbing.ErrObjectNotFound, as go-git answers it). It may
// be shared with the pack reader's cache: callers must not change it.
func (r *Repo) objectData(h plumbing.Hash, typ plumbing.ObjectType) ([]byte, error) {
	o, ok, err := r.packedObject(h, typ)
	if err != nil {
		return nil, err
	}
	if ok {
		return o.data, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// go-git's own storage: the pack reader was asked already
	obj, err := r.storage.EncodedObject(typ, h)
	if err != nil {
		return nil, err
	}
	rc, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// packedObject is object h from the pack reader, ok false when the pack
// reader does not know it. An object of another type than typ
// (plumbing.AnyObject takes any) is plumbing.ErrObjectNotFound, as go-git
// answers a type mismatch.
func (r *Repo) packedObject(h plumbing.Hash, typ plumbing.ObjectType) (packedObject, bool, error) {
	o, ok, err := r.packs().object(h)
	if err != nil || !ok {
		return packedObject{}, false, err
	}
	if typ != plumbing.AnyObject && o.typ != typ {
		return packedObject{}, false, plumbing.ErrObjectNotFound
	}
	return o, true, nil
}

// objectSize is object h's size, from the pack reader's headers where it
// can (packReader.size), else from go-git under the lock.
func (r *Repo) objectSize(h plumbing.Hash) (int64, error) {
	size, ok, err := r.packs().size(h)
	if err != nil || ok {
		return size, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.storage.EncodedObjectSize(h)
}
