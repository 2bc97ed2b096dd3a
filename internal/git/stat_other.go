//go:build !linux

package git

import (
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing"
)

// statOf returns the stat data available portably; git rehashes entries
// whose other stat fields differ, which is slower but still correct.
func statOf(fi fs.FileInfo, mode uint32, h plumbing.Hash) stat {
	mt := fi.ModTime()
	return stat{
		ctimeSec: uint32(mt.Unix()), ctimeNsec: uint32(mt.Nanosecond()),
		mtimeSec: uint32(mt.Unix()), mtimeNsec: uint32(mt.Nanosecond()),
		mode: mode, size: uint32(fi.Size()), hash: h,
	}
}
