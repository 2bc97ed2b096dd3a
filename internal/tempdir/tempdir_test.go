package tempdir

import (
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

// ForSocket's directory holds a listening socket of the longest tail it
// was asked for, however deep TMPDIR is.
func TestForSocket(t *testing.T) {
	const name = "org.chromium.Chromium.XXXXXX-SingletonSocket"
	for _, depth := range []int{1, 40, 120} {
		tmp := filepath.Join(t.TempDir(), strings.Repeat("d", depth))
		if err := os.Mkdir(tmp, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", tmp)
		dir, err := ForSocket("tempdir-test-", name)
		if err != nil {
			t.Fatal(err)
		}
		inTMPDIR := filepath.Dir(dir) == tmp
		if want := len(tmp)+len("/tempdir-test-1234567890/"+name) <= MaxSocketPath; inTMPDIR != want {
			t.Errorf("TMPDIR of %d bytes: directory %s, in TMPDIR %v, want %v", len(tmp), dir, inTMPDIR, want)
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("TMPDIR of %d bytes: %s: %v, %v", len(tmp), dir, fi, err)
		}
		ln, err := net.Listen("unix", filepath.Join(dir, name))
		if err != nil {
			t.Errorf("TMPDIR of %d bytes: %v", len(tmp), err)
		} else {
			ln.Close()
		}
		os.RemoveAll(dir)
	}
}
