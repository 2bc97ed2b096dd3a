package git

import (
	"os"
	"path/filepath"
	"testing"
)

// exchange must work where the tests and CI write work trees (ext4,
// tmpfs, overlayfs on Linux): the fast path is what apply takes there.
func TestExchangeSwapsContents(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok, err := exchange(a, b)
	if err != nil || !ok {
		t.Fatalf("exchange = %v, %v; want true, nil", ok, err)
	}
	if got, _ := os.ReadFile(b); string(got) != "new" {
		t.Errorf("b = %q, want new", got)
	}
	if got, _ := os.ReadFile(a); string(got) != "old" {
		t.Errorf("a = %q, want old", got)
	}
	// a missing file: no swap and no error, the caller renames
	if ok, err := exchange(a, filepath.Join(dir, "missing")); ok || err != nil {
		t.Errorf("exchange with a missing file = %v, %v; want false, nil", ok, err)
	}
}
