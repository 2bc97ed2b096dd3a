package git

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"
)

// objectBatch collects the new objects of one commit so they reach disk as
// a single packfile: a promotion writes a dozen small objects, and as loose
// objects each costs a temporary file, a directory and a rename (3-16 ms
// together on a busy disk), where one pack costs two files. git fast-import
// does the same.
type objectBatch struct {
	objs   []plumbing.EncodedObject
	hashes map[plumbing.Hash]bool
}

func (b *objectBatch) add(o plumbing.EncodedObject) {
	if b.hashes[o.Hash()] {
		return
	}
	b.hashes[o.Hash()] = true
	b.objs = append(b.objs, o)
}

// flushBatch writes the batch as one pack (or loose, when the storage
// cannot take packs). Until it returns, none of the objects is visible,
// which is fine: nothing refers to them before the ref moves.
func (r *Repo) flushBatch(b *objectBatch) error {
	pw, ok := r.repo.Storer.(storer.PackfileWriter)
	if !ok || len(b.objs) < 2 {
		for _, o := range b.objs {
			if _, err := r.repo.Storer.SetEncodedObject(o); err != nil {
				return fmt.Errorf("writing object %s: %w", o.Hash(), err)
			}
		}
		return nil
	}
	mem := memory.NewStorage()
	hashes := make([]plumbing.Hash, 0, len(b.objs))
	for _, o := range b.objs {
		if _, err := mem.SetEncodedObject(o); err != nil {
			return err
		}
		hashes = append(hashes, o.Hash())
	}
	w, err := pw.PackfileWriter()
	if err != nil {
		return fmt.Errorf("writing pack: %w", err)
	}
	if _, err := packfile.NewEncoder(w, mem, false).Encode(hashes, 0); err != nil {
		w.Close()
		return fmt.Errorf("writing pack: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing pack: %w", err)
	}
	return nil
}
