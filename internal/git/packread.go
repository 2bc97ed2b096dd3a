package git

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// packReader reads objects straight from the repository's pack files, as
// they were when it was opened: the index and the pack are read once,
// an object is found by the index's fan-out and a binary search, inflated
// and, for a delta, patched onto its base (go-git's PatchDelta). go-git's
// own read path costs 15-100 µs an object here (a loose-object look-up
// through the file system first, a scanner, a pooled reader, the object
// hashed again for its cache): a promotion reads about 35 objects on its
// critical path.
//
// It knows only pack index version 2 with SHA-1 names, pack versions 2 and
// 3, and deltas whose base is in the same pack, which is every pack git
// writes for a SHA-1 repository. For anything else (a loose object, an
// alternate, a SHA-256 repository, a pack written after it was opened) it
// answers "not found" and the caller asks go-git. Every object it returns
// has the hash that was asked for (checked), so a damaged pack is an
// error, never wrong content. Returned contents never alias the mapped
// files, which stay mapped for the life of the process.
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

// packData is one pack: its index and its content, read whole.
type packData struct {
	idx  []byte
	data []byte
	n    uint32
}

// errPackFormat: the pack reader does not read this; go-git does.
var errPackFormat = errors.New("pack format not read here")

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

// readPack maps a pack and its index (packs are never written in place,
// and a mapping outlives a repack's unlink).
func readPack(idxPath string) (*packData, error) {
	idx, err := mapFile(idxPath)
	if err != nil {
		return nil, err
	}
	data, err := mapFile(strings.TrimSuffix(idxPath, ".idx") + ".pack")
	if err != nil {
		return nil, err
	}
	p, err := newPackData(idx, data)
	if err != nil {
		unmapFile(idx)
		unmapFile(data)
	}
	return p, err
}

// newPackData checks that idx indexes data: the index's layout, the
// pack's header and object count, and the pack checksum both end with
// (a SHA-256 repository's do not fit and go to go-git).
func newPackData(idx, data []byte) (*packData, error) {
	n, err := checkIndex(idx)
	if err != nil {
		return nil, err
	}
	if len(data) < 12+20 || string(data[:4]) != "PACK" || (binary.BigEndian.Uint32(data[4:]) != 2 && binary.BigEndian.Uint32(data[4:]) != 3) ||
		binary.BigEndian.Uint32(data[8:]) != n || !bytes.Equal(idx[len(idx)-40:len(idx)-20], data[len(data)-20:]) {
		return nil, errPackFormat
	}
	return &packData{idx: idx, data: data, n: n}, nil
}

// checkIndex validates a version 2 index's layout and returns its object
// count.
func checkIndex(idx []byte) (uint32, error) {
	const head = 8 + 256*4
	if len(idx) < head+40 || !bytes.Equal(idx[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return 0, errPackFormat
	}
	n := binary.BigEndian.Uint32(idx[8+255*4:])
	prev := uint32(0)
	for i := range 256 {
		v := binary.BigEndian.Uint32(idx[8+i*4:])
		if v < prev {
			return 0, errPackFormat
		}
		prev = v
	}
	small := uint64(head) + uint64(n)*(20+4+4) + 40
	if uint64(len(idx)) < small || (uint64(len(idx))-small)%8 != 0 {
		return 0, errPackFormat
	}
	return n, nil
}

// find returns the pack offset of h.
func (p *packData) find(h plumbing.Hash) (uint64, bool) {
	const head = 8 + 256*4
	lo := uint32(0)
	if h[0] > 0 {
		lo = binary.BigEndian.Uint32(p.idx[8+(int(h[0])-1)*4:])
	}
	hi := binary.BigEndian.Uint32(p.idx[8+int(h[0])*4:])
	for lo < hi {
		mid := lo + (hi-lo)/2
		name := p.idx[head+int(mid)*20 : head+int(mid)*20+20]
		switch c := bytes.Compare(name, h[:]); {
		case c == 0:
			return p.offset(mid)
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

func (p *packData) offset(i uint32) (uint64, bool) {
	const head = 8 + 256*4
	at := head + int(p.n)*24 + int(i)*4
	v := binary.BigEndian.Uint32(p.idx[at:])
	if v&0x80000000 == 0 {
		return uint64(v), true
	}
	large := head + int(p.n)*28 + int(v&0x7fffffff)*8
	if large+8 > len(p.idx)-40 {
		return 0, false
	}
	return binary.BigEndian.Uint64(p.idx[large:]), true
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

// header parses the type and size at off and returns where the rest starts.
func (p *packData) header(off uint64) (plumbing.ObjectType, uint64, uint64, error) {
	if off < 12 || off >= uint64(len(p.data))-20 {
		return 0, 0, 0, errors.New("offset outside the pack")
	}
	i := off
	c := p.data[i]
	i++
	typ := plumbing.ObjectType((c >> 4) & 7)
	size := uint64(c & 15)
	shift := uint(4)
	for c&0x80 != 0 {
		if i >= uint64(len(p.data)) || shift > 60 {
			return 0, 0, 0, errors.New("bad object header")
		}
		c = p.data[i]
		i++
		size |= uint64(c&0x7f) << shift
		shift += 7
	}
	return typ, size, i, nil
}

// ofsDeltaOffset decodes an offset delta's base distance (git's "offset
// encoding": each continuation adds one before shifting).
func ofsDeltaOffset(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 0x7f)
	i := 1
	for c&0x80 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0
		}
		c = b[i]
		i++
		v = ((v + 1) << 7) | uint64(c&0x7f)
	}
	return v, i
}

var zlibReaders sync.Pool

// inflate reads exactly size bytes of the zlib stream at the start of b.
func inflate(b []byte, size uint64) ([]byte, error) {
	br := bytes.NewReader(b)
	var zr io.ReadCloser
	if r, ok := zlibReaders.Get().(io.ReadCloser); ok {
		if err := r.(zlib.Resetter).Reset(br, nil); err != nil {
			return nil, err
		}
		zr = r
	} else {
		r, err := zlib.NewReader(br)
		if err != nil {
			return nil, err
		}
		zr = r
	}
	defer zlibReaders.Put(zr)
	// Grown as the data inflates, not sized by the header up front: a
	// damaged header must not allocate what the data never holds.
	out := bytes.NewBuffer(make([]byte, 0, min(size, 1<<20)))
	if _, err := out.ReadFrom(io.LimitReader(zr, int64(min(size, 1<<62))+1)); err != nil {
		return nil, err
	}
	if uint64(out.Len()) != size {
		return nil, fmt.Errorf("object inflates to %d bytes, its header says %d", out.Len(), size)
	}
	return out.Bytes(), nil
}

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
	o, ok, err := s.r.packs().object(h)
	if err != nil {
		return nil, err
	}
	if !ok {
		return s.Storage.EncodedObject(t, h)
	}
	if t != plumbing.AnyObject && t != o.typ {
		return nil, plumbing.ErrObjectNotFound // as go-git answers a type mismatch
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

// EncodedObjectSize is EncodedObject's size.
func (s refStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	o, ok, err := s.r.packs().object(h)
	if err != nil {
		return 0, err
	}
	if !ok {
		return s.Storage.EncodedObjectSize(h)
	}
	return int64(len(o.data)), nil
}
