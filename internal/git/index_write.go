package git

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"slices"
)

// keptExtensions are the optional index extensions that stay valid when
// entries change. The rest (cache tree, untracked cache, fsmonitor,
// offset tables) would be stale or point at wrong offsets; git rebuilds
// them on demand.
var keptExtensions = map[string]bool{"REUC": true}

// update returns the index with each path in stats set to stage 0 and the
// given stat data and hash, adding entries that do not exist. The result
// is pieces to write in order: unchanged runs of entries are slices of
// ix.data, so a 1.8 MB index is not copied to change a handful of entries.
func (ix *rawIndex) update(stats map[string]stat) ([][]byte, error) {
	changed := map[int][]byte{} // entry offset -> its new bytes
	var added []string
	for name, s := range stats {
		found := ix.find(name)
		switch {
		case len(found) == 0:
			added = append(added, name)
			continue
		case len(found) > 1 || found[0].stage(ix.data) != 0:
			return nil, fmt.Errorf("updating index for %s: path has unresolved merge conflicts", name)
		}
		e := found[0]
		b := slices.Clone(ix.data[e.off:e.end])
		putStat(b, s)
		if flags := binary.BigEndian.Uint16(b[60:]); flags&flagExtended != 0 {
			ext := binary.BigEndian.Uint16(b[62:])
			binary.BigEndian.PutUint16(b[62:], ext&^extIntentAdd)
		}
		changed[e.off] = b
	}
	if len(added) > 0 && ix.version == 4 {
		// Names are prefix-compressed against the previous entry, so an
		// insertion would re-encode its successor.
		return nil, fmt.Errorf("%w: adding entries to a version 4 index", errIndexFormat)
	}
	exts, err := ix.keptExtensions()
	if err != nil {
		return nil, err
	}
	header := slices.Clone(ix.data[:12])
	binary.BigEndian.PutUint32(header[8:], uint32(ix.len()+len(added)))
	pieces := [][]byte{header}
	slices.Sort(added)
	run := 12 // start of the unchanged run not yet emitted
	for i := range ix.len() {
		e := ix.entry(i)
		b, ok := changed[e.off]
		insert := len(added) > 0 && ix.compareName(i, added[0]) > 0
		if !ok && !insert {
			continue
		}
		pieces, run = append(pieces, ix.data[run:e.off]), e.off
		for len(added) > 0 && ix.compareName(i, added[0]) > 0 {
			pieces = append(pieces, newEntry(added[0], stats[added[0]]))
			added = added[1:]
		}
		if ok {
			pieces, run = append(pieces, b), e.end
		}
	}
	pieces = append(pieces, ix.data[run:ix.extOff])
	for _, name := range added {
		pieces = append(pieces, newEntry(name, stats[name]))
	}
	pieces = append(pieces, exts...)
	var sum [sha1.Size]byte
	if !slices.Equal(ix.data[len(ix.data)-20:], make([]byte, 20)) {
		h := sha1.New()
		for _, p := range pieces {
			h.Write(p)
		}
		h.Sum(sum[:0])
	} // else index.skipHash: git writes and expects zeros
	return append(pieces, sum[:]), nil
}

func (ix *rawIndex) keptExtensions() ([][]byte, error) {
	var out [][]byte
	data, end := ix.data, len(ix.data)-20
	for off := ix.extOff; off < end; {
		if off+8 > end {
			return nil, fmt.Errorf("%w: truncated extension", errIndexFormat)
		}
		sig := string(data[off : off+4])
		size := int(binary.BigEndian.Uint32(data[off+4:]))
		next := off + 8 + size
		if next > end || next < off {
			return nil, fmt.Errorf("%w: truncated extension %q", errIndexFormat, sig)
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			// Lower case: git requires readers to understand it (split
			// index, sparse index), so we cannot drop or ignore it.
			return nil, fmt.Errorf("%w: index extension %q (split or sparse index)", errIndexFormat, sig)
		}
		if keptExtensions[sig] {
			out = append(out, data[off:next])
		}
		off = next
	}
	return out, nil
}
