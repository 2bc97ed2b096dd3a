package git

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A hand-rolled reader and patcher for the index file. go-git's codec
// decodes and encodes every one of 20,000 entries through reflection
// (~30 ms each way); a promotion touches a handful of entries, so we
// locate them in the raw bytes and rewrite only their fixed-size fields.
// See git's Documentation/gitformat-index.txt.

const (
	entryFixed   = 62 // stat fields, hash and flags, before the name
	flagExtended = 0x4000
	flagStage    = 0x3000
	nameMask     = 0x0fff
	extIntentAdd = 0x2000
)

var errIndexFormat = errors.New("unsupported index format")

type rawIndex struct {
	data    []byte
	version uint32
	offs    []int32  // where each entry starts, in file (sorted) order
	names   []string // version 4 only: names are prefix-compressed
	extOff  int      // where extensions start (end of entries)
}

// rawEntry is one entry's bytes, padding included.
type rawEntry struct{ off, end int }

func (e rawEntry) stage(data []byte) int {
	return int(binary.BigEndian.Uint16(data[e.off+60:]) & flagStage >> 12)
}

func (e rawEntry) hash(data []byte) plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], data[e.off+40:e.off+60])
	return h
}

func (e rawEntry) mode(data []byte) filemode.FileMode {
	return filemode.FileMode(binary.BigEndian.Uint32(data[e.off+24:]))
}

// parseIndex locates every entry of data. It records offsets only: a
// 20,000-file index is 1.8 MB, and a string per name made parsing it the
// largest allocation of a promotion.
func parseIndex(data []byte) (*rawIndex, error) {
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: bad header", errIndexFormat)
	}
	ix := &rawIndex{data: data, version: binary.BigEndian.Uint32(data[4:])}
	if ix.version < 2 || ix.version > 4 {
		return nil, fmt.Errorf("%w: version %d", errIndexFormat, ix.version)
	}
	count := int(binary.BigEndian.Uint32(data[8:]))
	if count > (len(data)-32)/entryFixed {
		return nil, fmt.Errorf("%w: %d entries in %d bytes", errIndexFormat, count, len(data))
	}
	ix.offs = make([]int32, 0, count)
	if ix.version == 4 {
		ix.names = make([]string, 0, count)
	}
	off, prev := 12, ""
	for range count {
		end, name, err := ix.parseEntry(off, prev)
		if err != nil {
			return nil, err
		}
		ix.offs = append(ix.offs, int32(off))
		if ix.version == 4 {
			ix.names = append(ix.names, name)
			prev = name
		}
		off = end
	}
	ix.extOff = off
	return ix, nil
}

// parseEntry returns the end of the entry at off and, for version 4, its
// name (prev is the previous entry's).
func (ix *rawIndex) parseEntry(off int, prev string) (int, string, error) {
	data := ix.data
	bad := func() (int, string, error) {
		return 0, "", fmt.Errorf("%w: truncated entry at %d", errIndexFormat, off)
	}
	if off+entryFixed > len(data)-20 {
		return bad()
	}
	p := ix.namePos(off)
	var prefix string
	if ix.version == 4 {
		strip, n := offsetVarint(data[p:])
		if n == 0 || strip > len(prev) {
			return bad()
		}
		prefix, p = prev[:len(prev)-strip], p+n
	}
	nul := bytes.IndexByte(data[p:len(data)-20], 0)
	if nul < 0 {
		return bad()
	}
	if ix.version < 4 {
		// Entries are padded with 1-8 NULs to a multiple of 8 bytes.
		return off + (p-off+nul+8)&^7, "", nil
	}
	return p + nul + 1, prefix + string(data[p:p+nul]), nil
}

// namePos is where the name (v2/v3) or its prefix varint (v4) starts.
func (ix *rawIndex) namePos(off int) int {
	if binary.BigEndian.Uint16(ix.data[off+60:])&flagExtended != 0 {
		return off + entryFixed + 2
	}
	return off + entryFixed
}

func (ix *rawIndex) len() int { return len(ix.offs) }

func (ix *rawIndex) entry(i int) rawEntry {
	end := ix.extOff
	if i+1 < len(ix.offs) {
		end = int(ix.offs[i+1])
	}
	return rawEntry{off: int(ix.offs[i]), end: end}
}

// compareName compares entry i's name with name, without allocating.
func (ix *rawIndex) compareName(i int, name string) int {
	if ix.version == 4 {
		return strings.Compare(ix.names[i], name)
	}
	p := ix.namePos(int(ix.offs[i]))
	b := ix.data[p:]
	for j := 0; ; j++ {
		switch {
		case j == len(name):
			if b[j] == 0 {
				return 0
			}
			return 1
		case b[j] == 0 || b[j] < name[j]:
			return -1
		case b[j] > name[j]:
			return 1
		}
	}
}

// offsetVarint decodes git's "offset" varint (read-cache.c decode_varint).
func offsetVarint(b []byte) (int, int) {
	val, i := 0, 0
	for i < len(b) && i < 10 {
		c := b[i]
		i++
		val = val<<7 | int(c&0x7f)
		if c&0x80 == 0 {
			return val, i
		}
		val++
	}
	return 0, 0
}

// find returns the entries (all stages) for name.
func (ix *rawIndex) find(name string) []rawEntry {
	i := sort.Search(ix.len(), func(i int) bool { return ix.compareName(i, name) >= 0 })
	var out []rawEntry
	for ; i < ix.len() && ix.compareName(i, name) == 0; i++ {
		out = append(out, ix.entry(i))
	}
	return out
}

// stat is what the index records about a work tree file.
type stat struct {
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec uint32
	dev, ino, mode, uid, gid, size           uint32
	hash                                     plumbing.Hash
}

func putStat(b []byte, s stat) {
	for i, v := range []uint32{s.ctimeSec, s.ctimeNsec, s.mtimeSec, s.mtimeNsec, s.dev, s.ino, s.mode, s.uid, s.gid, s.size} {
		binary.BigEndian.PutUint32(b[i*4:], v)
	}
	copy(b[40:60], s.hash[:])
}

// newEntry encodes an index entry for a version 2 or 3 index.
func newEntry(name string, s stat) []byte {
	n := (entryFixed + len(name) + 8) &^ 7
	b := make([]byte, n)
	putStat(b, s)
	binary.BigEndian.PutUint16(b[60:], uint16(min(len(name), nameMask)))
	copy(b[entryFixed:], name)
	return b
}
