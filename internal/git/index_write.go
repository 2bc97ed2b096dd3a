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
// given stat data and hash, adding entries that do not exist.
func (ix *rawIndex) update(stats map[string]stat) ([]byte, error) {
	patched := slices.Clone(ix.data[:ix.extOff])
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
		putStat(patched[e.off:], s)
		if flags := binary.BigEndian.Uint16(patched[e.off+60:]); flags&flagExtended != 0 {
			ext := binary.BigEndian.Uint16(patched[e.off+62:])
			binary.BigEndian.PutUint16(patched[e.off+62:], ext&^extIntentAdd)
		}
	}
	if len(added) > 0 {
		if ix.version == 4 {
			// Names are prefix-compressed against the previous entry, so
			// an insertion would re-encode its successor.
			return nil, fmt.Errorf("%w: adding entries to a version 4 index", errIndexFormat)
		}
		patched = ix.insert(patched, added, stats)
	}
	exts, err := ix.keptExtensions()
	if err != nil {
		return nil, err
	}
	out := append(patched, exts...)
	sum := sha1.Sum(out)
	trailer := ix.data[len(ix.data)-20:]
	if slices.Equal(trailer, make([]byte, 20)) {
		sum = [20]byte{} // index.skipHash: git writes and expects zeros
	}
	return append(out, sum[:]...), nil
}

// insert splices new entries into entries (v2/v3), keeping name order.
func (ix *rawIndex) insert(patched []byte, added []string, stats map[string]stat) []byte {
	slices.Sort(added)
	out := make([]byte, 0, len(patched)+len(added)*96)
	out = append(out, patched[:12]...)
	binary.BigEndian.PutUint32(out[8:], uint32(len(ix.entries)+len(added)))
	for _, e := range ix.entries {
		for len(added) > 0 && added[0] < e.name {
			out = append(out, newEntry(added[0], stats[added[0]])...)
			added = added[1:]
		}
		out = append(out, patched[e.off:e.end]...)
	}
	for _, name := range added {
		out = append(out, newEntry(name, stats[name])...)
	}
	return out
}

func (ix *rawIndex) keptExtensions() ([]byte, error) {
	var out []byte
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
			out = append(out, data[off:next]...)
		}
		off = next
	}
	return out, nil
}
