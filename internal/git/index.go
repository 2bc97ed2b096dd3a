package git

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

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
	entries []rawEntry // in file (sorted) order
	extOff  int        // where extensions start (end of entries)
}

type rawEntry struct {
	name string
	off  int // start of the entry
	end  int // end of the entry, padding included
}

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

func parseIndex(data []byte) (*rawIndex, error) {
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: bad header", errIndexFormat)
	}
	ix := &rawIndex{data: data, version: binary.BigEndian.Uint32(data[4:])}
	if ix.version < 2 || ix.version > 4 {
		return nil, fmt.Errorf("%w: version %d", errIndexFormat, ix.version)
	}
	count := int(binary.BigEndian.Uint32(data[8:]))
	ix.entries = make([]rawEntry, 0, count)
	off, prev := 12, ""
	for range count {
		e, err := ix.parseEntry(off, prev)
		if err != nil {
			return nil, err
		}
		ix.entries = append(ix.entries, e)
		off, prev = e.end, e.name
	}
	ix.extOff = off
	return ix, nil
}

func (ix *rawIndex) parseEntry(off int, prev string) (rawEntry, error) {
	data := ix.data
	bad := func() (rawEntry, error) {
		return rawEntry{}, fmt.Errorf("%w: truncated entry at %d", errIndexFormat, off)
	}
	if off+entryFixed > len(data)-20 {
		return bad()
	}
	flags := binary.BigEndian.Uint16(data[off+60:])
	p := off + entryFixed
	if flags&flagExtended != 0 {
		p += 2
	}
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
	e := rawEntry{name: prefix + string(data[p:p+nul]), off: off, end: p + nul + 1}
	if ix.version < 4 {
		// Entries are padded with 1-8 NULs to a multiple of 8 bytes.
		e.end = off + (p-off+nul+8)&^7
	}
	return e, nil
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
	i := sort.Search(len(ix.entries), func(i int) bool { return ix.entries[i].name >= name })
	j := i
	for j < len(ix.entries) && ix.entries[j].name == name {
		j++
	}
	return ix.entries[i:j]
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
