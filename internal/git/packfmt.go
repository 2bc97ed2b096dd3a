package git

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// The on-disk formats the pack reader reads: pack index version 2 and
// packs version 2 and 3 (git's Documentation/gitformat-pack.txt).

// packData is one pack: its index and its content, mapped.
type packData struct {
	idx  []byte
	data []byte
	n    uint32
}

// errPackFormat: the pack reader does not read this; go-git does.
var errPackFormat = errors.New("pack format not read here")

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
