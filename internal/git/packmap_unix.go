//go:build unix

package git

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps a whole file read-only.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return nil, errPackFormat
	}
	return unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(b []byte) {
	if b != nil {
		unix.Munmap(b)
	}
}
