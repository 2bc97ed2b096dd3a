package git

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// packReader reads objects straight from the repository's pack files
// (packfmt.go): the index and the pack are mapped, an object is found by
// the index's fan-out and a binary search, inflated and, for a delta,
// patched onto its base (go-git's PatchDelta). go-git's own read path
// costs 15-100 µs an object here (a loose-object look-up through the file
// system first, a scanner, a pooled reader, the object hashed again for
// its cache): a promotion reads about 35 objects on its critical path.
//
// It knows only pack index version 2 with SHA-1 names, pack versions 2 and
// 3, and deltas whose base is in the same pack, which is every pack git
// writes for a SHA-1 repository. For anything else (a loose object, an
// alternate, a SHA-256 repository, a pack another process wrote after it
// was opened) it answers "not found" and the caller asks go-git
// (packstore.go). Every object it returns has the hash that was asked for
// (checked), so a damaged pack is an error, never wrong content. Returned
// contents never alias the mapped files, which stay mapped for the life
// of the process.
type packReader struct {
	packs  atomic.Pointer[[]*packData] // replaced whole when a pack is added
	mu     sync.Mutex
	bases  map[baseKey]packedObject // resolved delta bases, by pack and offset
	cached int                      // their bytes, up to maxBaseCache
	cache  *objectCache             // objects read last, checked
}

// maxBaseCache bounds the delta bases kept (the first ones read stay).
const maxBaseCache = 32 << 20

type baseKey struct {
	pack *packData
	off  uint64
}

type packedObject struct {
	typ  plumbing.ObjectType
	data []byte
}

// openPacks reads the pack indexes and packs under objectsDir; a pack it
// cannot read is left to go-git.
func openPacks(objectsDir string) *packReader {
	var packs []*packData
	idxs, _ := filepath.Glob(filepath.Join(objectsDir, "pack", "pack-*.idx"))
	for _, idx := range idxs {
		if p, err := readPack(idx); err == nil {
			packs = append(packs, p)
		}
	}
	return newPackReader(packs)
}

func newPackReader(packs []*packData) *packReader {
	pr := &packReader{bases: map[baseKey]packedObject{}, cache: newObjectCache(96 << 20)}
	pr.packs.Store(&packs)
	return pr
}

// add makes a pack this process wrote readable (its index and content as
// written).
func (pr *packReader) add(idx, data []byte) {
	p, err := newPackData(idx, data)
	if err != nil {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	packs := append(append([]*packData{}, *pr.packs.Load()...), p)
	pr.packs.Store(&packs)
}

// object returns h's type and content, or ok false when h is not in the
// packs this reader knows.
func (pr *packReader) object(h plumbing.Hash) (packedObject, bool, error) {
	if o, ok := pr.cache.get(h); ok {
		return o, true, nil
	}
	for _, p := range *pr.packs.Load() {
		off, ok := p.find(h)
		if !ok {
			continue
		}
		o, err := pr.at(p, off, 0)
		if errors.Is(err, errPackFormat) {
			return packedObject{}, false, nil
		}
		if err != nil {
			return packedObject{}, false, fmt.Errorf("reading object %s from its pack: %w", h, err)
		}
		if got := objectHash(o); got != h {
			return packedObject{}, false, fmt.Errorf("reading object %s from its pack: content hashes to %s", h, got)
		}
		pr.cache.put(h, o)
		return o, true, nil
	}
	return packedObject{}, false, nil
}

// size returns h's size, ok false as object does. A whole object's size
// is its pack header's, its content not read: Stat asks mostly whether a
// path is a file. A delta is resolved (and cached) as object does, its
// size being known only after its base.
func (pr *packReader) size(h plumbing.Hash) (int64, bool, error) {
	if o, ok := pr.cache.get(h); ok {
		return int64(len(o.data)), true, nil
	}
	for _, p := range *pr.packs.Load() {
		off, ok := p.find(h)
		if !ok {
			continue
		}
		typ, size, _, err := p.header(off)
		if err == nil && typ >= plumbing.CommitObject && typ <= plumbing.TagObject && size <= 1<<62 {
			return int64(size), true, nil
		}
		break // a delta, or a damaged header: object says which
	}
	o, ok, err := pr.object(h)
	return int64(len(o.data)), ok, err
}

// objectHash is git's name for o. crypto/sha1, not go-git's ComputeHash:
// this checks what was read against a name git already gave it, where
// collision detection (3x slower here) guards nothing.
func objectHash(o packedObject) plumbing.Hash {
	s := sha1.New()
	fmt.Fprintf(s, "%s %d\x00", o.typ, len(o.data))
	s.Write(o.data)
	var h plumbing.Hash
	copy(h[:], s.Sum(nil))
	return h
}

// maxDeltaDepth bounds a delta chain (git's default depth is 50).
const maxDeltaDepth = 10000

// at reads the object at off, resolving deltas.
func (pr *packReader) at(p *packData, off uint64, depth int) (packedObject, error) {
	if depth > maxDeltaDepth {
		return packedObject{}, errors.New("delta chain too deep")
	}
	typ, size, body, err := p.header(off)
	if err != nil {
		return packedObject{}, err
	}
	var base uint64
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		data, err := inflate(p.data[body:], size)
		return packedObject{typ: typ, data: data}, err
	case plumbing.OFSDeltaObject:
		rel, n := ofsDeltaOffset(p.data[body:])
		if n == 0 || rel == 0 || rel > off {
			return packedObject{}, errors.New("bad delta base offset")
		}
		base, body = off-rel, body+uint64(n)
	case plumbing.REFDeltaObject:
		if body+20 > uint64(len(p.data)) {
			return packedObject{}, io.ErrUnexpectedEOF
		}
		var ok bool
		if base, ok = p.find(plumbing.Hash(p.data[body : body+20])); !ok {
			return packedObject{}, errPackFormat // a base outside the pack (a thin pack)
		}
		body += 20
	default:
		return packedObject{}, fmt.Errorf("object type %d", typ)
	}
	delta, err := inflate(p.data[body:], size)
	if err != nil {
		return packedObject{}, err
	}
	b, err := pr.base(p, base, depth)
	if err != nil {
		return packedObject{}, err
	}
	data, err := packfile.PatchDelta(b.data, delta)
	return packedObject{typ: b.typ, data: data}, err
}

// base reads a delta's base through the cache: objects of one directory
// are often deltas of one another.
func (pr *packReader) base(p *packData, off uint64, depth int) (packedObject, error) {
	k := baseKey{p, off}
	pr.mu.Lock()
	o, ok := pr.bases[k]
	pr.mu.Unlock()
	if ok {
		return o, nil
	}
	o, err := pr.at(p, off, depth+1)
	if err != nil {
		return o, err
	}
	pr.mu.Lock()
	if pr.cached+len(o.data) <= maxBaseCache {
		pr.bases[k] = o
		pr.cached += len(o.data)
	}
	pr.mu.Unlock()
	return o, nil
}
