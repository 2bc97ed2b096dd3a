package tempdir

import (
	"os"
	"path/filepath"
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
