package tempdir

import (
	"os"
	"path/filepath"
)

// MaxSocketPath keeps a Unix socket's path within sun_path (108 bytes on
// Linux, 104 on macOS).
const MaxSocketPath = 100

// ForSocket makes a new directory (mode 0700, so only this user reaches
// what listens in it) for a Unix socket whose path is tail bytes longer
// than the directory's: in TMPDIR, or in /tmp when TMPDIR is too deep for
// the socket's path to fit. A test's TMPDIR can be that deep, and so can
// a user's.
func ForSocket(prefix string, tail int) (string, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil || len(dir)+tail <= MaxSocketPath {
		return dir, err
	}
	os.RemoveAll(dir)
	return os.MkdirTemp("/tmp", prefix)
}

// SocketIn is the tail a socket named name adds to its directory's path.
func SocketIn(name string) int {
	return len(filepath.Join("d", name)) - 1
}
