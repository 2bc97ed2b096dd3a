package tempdir

import "os"

// MaxSocketPath keeps a Unix socket's path within sun_path (108 bytes on
// Linux, 104 on macOS).
const MaxSocketPath = 100

// ForSocket makes a new directory (mode 0700, so only this user reaches
// what listens in it) for a Unix socket at the relative path socket below
// it: in TMPDIR, or in /tmp when TMPDIR is too deep for
// the socket's path to fit. A test's TMPDIR can be that deep, and so can
// a user's.
func ForSocket(prefix, socket string) (string, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil || len(dir)+1+len(socket) <= MaxSocketPath {
		return dir, err
	}
	os.RemoveAll(dir)
	return os.MkdirTemp("/tmp", prefix)
}
