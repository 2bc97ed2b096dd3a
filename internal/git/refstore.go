package git

import (
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// refStorage is the storage go-git works on, with its reference writes
// replaced by git's lock protocol (lock file, write, rename; see casRef).
// go-git writes a loose ref in place (open, truncate, write): a kill
// between the truncate and the write left an empty remote-tracking ref.
type refStorage struct {
	*filesystem.Storage
	r *Repo
}

func (s refStorage) SetReference(ref *plumbing.Reference) error {
	if !plainRef(ref) {
		return s.Storage.SetReference(ref)
	}
	return s.r.writeRef(ref.Name(), nil, ref.Hash())
}

func (s refStorage) CheckAndSetReference(ref, old *plumbing.Reference) error {
	if !plainRef(ref) || old != nil && old.Type() != plumbing.HashReference {
		return s.Storage.CheckAndSetReference(ref, old)
	}
	var want *plumbing.Hash
	if old != nil {
		h := old.Hash()
		want = &h
	}
	return s.r.writeRef(ref.Name(), want, ref.Hash())
}

func plainRef(ref *plumbing.Reference) bool {
	return ref.Type() == plumbing.HashReference && strings.HasPrefix(ref.Name().String(), "refs/")
}

// writeRef sets a ref under its lock (only if it holds *old, when set).
func (r *Repo) writeRef(name plumbing.ReferenceName, old *plumbing.Hash, h plumbing.Hash) error {
	if err := validPath(name.String()); err != nil {
		return err
	}
	return r.casRef(name.String(), r.refPath(name), old, h)
}

func (r *Repo) refPath(name plumbing.ReferenceName) string {
	return filepath.Join(r.commonDir, filepath.FromSlash(name.String()))
}
