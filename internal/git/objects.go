package git

import (
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

// go-git's object storage is not safe for concurrent use (its open
// packfiles and caches live in unguarded maps): every object read goes
// through it holding the repository's lock, as history walks do. Tree
// views share the decoded trees (treeobj.go) without a lock.

// objectData returns the content of object h, which must be of type typ
// (a mismatch is plumbing.ErrObjectNotFound, as go-git answers it).
func (r *Repo) objectData(h plumbing.Hash, typ plumbing.ObjectType) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
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

// objectSize is object h's size, from its header (go-git reads a packed
// delta's size from the delta's own header, the content unread).
func (r *Repo) objectSize(h plumbing.Hash) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.storage.EncodedObjectSize(h)
}
