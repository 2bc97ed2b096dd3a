package git

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
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

// flushBatch writes the batch as one pack (a single object stays loose). Until it returns, none of the objects is visible,
// which is fine: nothing refers to them before the ref moves.
func (r *Repo) flushBatch(b *objectBatch) error {
	if len(b.objs) < 2 {
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
	var pack bytes.Buffer
	if _, err := packfile.NewEncoder(&pack, mem, false).Encode(hashes, 0); err != nil {
		return fmt.Errorf("writing pack: %w", err)
	}
	idx, sum, err := indexPack(pack.Bytes())
	if err != nil {
		return err
	}
	// git's order: the pack first, its index last. A pack without an
	// index is ignored, so a kill at any point leaves a valid repository
	// (go-git's own PackfileWriter writes the index in place: a kill
	// there left a truncated .idx that broke every git command).
	dir := filepath.Join(r.commonDir, "objects", "pack")
	name := "pack-" + sum.String()
	if err := r.writeObjectFile(dir, name+".pack", pack.Bytes()); err != nil {
		return err
	}
	if err := r.writeObjectFile(dir, name+".idx", idx); err != nil {
		return err
	}
	r.storage.Reindex()
	return nil
}

// indexPack builds the .idx of a pack and returns it with the pack's name.
func indexPack(pack []byte) ([]byte, plumbing.Hash, error) {
	w := new(idxfile.Writer)
	parser, err := packfile.NewParser(packfile.NewScanner(bytes.NewReader(pack)), w)
	if err != nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("indexing pack: %w", err)
	}
	sum, err := parser.Parse()
	if err != nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("indexing pack: %w", err)
	}
	mi, err := w.Index()
	if err != nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("indexing pack: %w", err)
	}
	var out bytes.Buffer
	if _, err := idxfile.NewEncoder(&out).Encode(mi); err != nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("indexing pack: %w", err)
	}
	return out.Bytes(), sum, nil
}

// writeObjectFile writes a read-only file of the object store through a
// temporary file (git's tmp_ prefix, which gc cleans) and a rename.
func (r *Repo) writeObjectFile(dir, name string, data []byte) (err error) {
	final := filepath.Join(dir, name)
	if _, err := os.Stat(final); err == nil {
		return nil // same content by construction: the name is its checksum
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	f, err := os.CreateTemp(dir, "tmp_pack_*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if r.fsync {
		if err = f.Sync(); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	if err = f.Chmod(0o444); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err = os.Rename(f.Name(), final); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
