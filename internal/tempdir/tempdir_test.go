package tempdir

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Private's directory is inside the TMPDIR it found, is TMPDIR until
// removed, and whatever was left in it goes with it.
func TestPrivate(t *testing.T) {
	for _, set := range []bool{true, false} {
		parent := t.TempDir()
		if set {
			t.Setenv("TMPDIR", parent)
		} else {
			t.Setenv("TMPDIR", "")
			os.Unsetenv("TMPDIR")
			parent = os.TempDir()
		}
		remove, err := Private("tempdir-test-")
		if err != nil {
			t.Fatal(err)
		}
		dir := os.Getenv("TMPDIR")
		if filepath.Dir(dir) != filepath.Clean(parent) {
			t.Errorf("TMPDIR set=%v: private directory %s is not inside %s", set, dir, parent)
		}
		left, err := os.MkdirTemp("", "kustomize-helm-")
		if err != nil {
			t.Fatal(err)
		}
		remove()
		if _, err := os.Stat(left); !os.IsNotExist(err) {
			t.Errorf("TMPDIR set=%v: %s survived the removal (%v)", set, left, err)
		}
		got, had := os.LookupEnv("TMPDIR")
		if had != set || (set && got != parent) {
			t.Errorf("TMPDIR set=%v: restored as %q (set %v)", set, got, had)
		}
	}
}

// ForSocket's directory holds a listening socket of the tail it was
// asked for, however deep TMPDIR is, and is in TMPDIR whenever the
// socket fits there. MkdirTemp's random suffix is 1 to 10 digits, so
// between the shortest and the longest suffix either place is right.
func TestForSocket(t *testing.T) {
	const chromium = "org.chromium.Chromium.XXXXXX-SingletonSocket"
	const prefix = "tempdir-test-"
	for _, tc := range []struct {
		depth  int
		socket string
	}{{1, "s"}, {1, chromium}, {40, chromium}, {120, chromium}, {120, "s"}} {
		tmp := filepath.Join(t.TempDir(), strings.Repeat("d", tc.depth))
		if err := os.Mkdir(tmp, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", tmp)
		dir, err := ForSocket(prefix, tc.socket)
		if err != nil {
			t.Fatal(err)
		}
		at := fmt.Sprintf("TMPDIR of %d bytes, socket of %d", len(tmp), len(tc.socket))
		shortest := len(tmp) + len("/"+prefix+"1/"+tc.socket)
		longest := len(tmp) + len("/"+prefix+"1234567890/"+tc.socket)
		switch parent := filepath.Dir(dir); {
		case parent != tmp && parent != "/tmp":
			t.Errorf("%s: directory %s is neither in TMPDIR nor in /tmp", at, dir)
		case parent == tmp && shortest > MaxSocketPath:
			t.Errorf("%s: directory %s is in TMPDIR, where no socket of that name fits", at, dir)
		case parent == "/tmp" && longest <= MaxSocketPath:
			t.Errorf("%s: directory %s is in /tmp, though the socket fits in TMPDIR", at, dir)
		case len(dir)+1+len(tc.socket) > MaxSocketPath:
			t.Errorf("%s: socket path under %s is over %d bytes", at, dir, MaxSocketPath)
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %s: %v, %v", at, dir, fi, err)
		}
		ln, err := net.Listen("unix", filepath.Join(dir, tc.socket))
		if err != nil {
			t.Errorf("%s: %v", at, err)
		} else {
			ln.Close()
		}
		os.RemoveAll(dir)
	}
}
