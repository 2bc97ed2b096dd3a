package git

import (
	"io/fs"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
)

// statOf returns the stat data git compares to decide that an entry is
// unchanged without rehashing it.
func statOf(fi fs.FileInfo, mode uint32, h plumbing.Hash) stat {
	mt := fi.ModTime()
	s := stat{
		ctimeSec: uint32(mt.Unix()), ctimeNsec: uint32(mt.Nanosecond()),
		mtimeSec: uint32(mt.Unix()), mtimeNsec: uint32(mt.Nanosecond()),
		mode: mode, size: uint32(fi.Size()), hash: h,
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ctimeSec, s.ctimeNsec = uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec)
		s.dev, s.ino, s.uid, s.gid = uint32(st.Dev), uint32(st.Ino), st.Uid, st.Gid
	}
	return s
}
