package git

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestEncodePack checks our pack writer against git itself: entry sizes
// straddle each width of the size header (4, 11 and 18 bits) and the
// 64 KB limit of a stored deflate block, and git
// verify-pack must accept the pack and index and list every object.
func TestEncodePack(t *testing.T) {
	var objs []plumbing.EncodedObject
	for _, n := range []int{0, 1, 15, 16, 2047, 2048, 65535, 65536, 262143, 262144, 300000} {
		o := &plumbing.MemoryObject{}
		o.SetType(plumbing.BlobObject)
		o.Write(bytes.Repeat([]byte{byte('a' + n%26)}, n))
		objs = append(objs, o)
	}
	pack, idx, sum, err := encodePack(objs)
	if err != nil {
		t.Fatal(err)
	}
	dir := newRepo(t)
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	os.MkdirAll(packDir, 0o755)
	base := filepath.Join(packDir, "pack-"+sum.String())
	if err := os.WriteFile(base+".pack", pack, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".idx", idx, 0o444); err != nil {
		t.Fatal(err)
	}
	out := run(t, dir, "verify-pack", "-v", base+".idx")
	for _, o := range objs {
		if !strings.Contains(out, o.Hash().String()+" blob") {
			t.Errorf("verify-pack does not list %s:\n%s", o.Hash(), out)
		}
	}
	// and go-git reads each object back through the index
	r := openRepo(t, dir)
	for _, o := range objs {
		got, err := r.repo.Storer.EncodedObject(plumbing.BlobObject, o.Hash())
		if err != nil {
			t.Fatalf("reading %s back: %v", o.Hash(), err)
		}
		if got.Size() != o.Size() {
			t.Errorf("%s: size %d, want %d", o.Hash(), got.Size(), o.Size())
		}
	}
}
