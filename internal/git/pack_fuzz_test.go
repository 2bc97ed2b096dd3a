package git

import (
	"bytes"
	"io"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// FuzzEncodePack round-trips objects through our pack writer and go-git's
// reader: every object comes back with its type and bytes, at the offset
// the index gives, and the pack's trailer names it.
func FuzzEncodePack(f *testing.F) {
	f.Add([]byte("a\x00b"), uint8(3))
	f.Add(bytes.Repeat([]byte("x"), 70000), uint8(1))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, types uint8) {
		var objs []plumbing.EncodedObject
		seen := map[plumbing.Hash]bool{}
		for i, part := range bytes.Split(data, []byte{0}) {
			o := &plumbing.MemoryObject{}
			o.SetType([]plumbing.ObjectType{plumbing.BlobObject, plumbing.TreeObject, plumbing.CommitObject}[(int(types)+i)%3])
			o.Write(part)
			if !seen[o.Hash()] {
				seen[o.Hash()] = true
				objs = append(objs, o)
			}
		}
		pack, idx, sum, err := encodePack(objs)
		if err != nil {
			t.Fatal(err)
		}
		mi := idxfile.NewMemoryIndex()
		if err := idxfile.NewDecoder(bytes.NewReader(idx)).Decode(mi); err != nil {
			t.Fatalf("decoding our index: %v", err)
		}
		if plumbing.Hash(mi.PackfileChecksum) != sum {
			t.Fatalf("index names pack %x, want %s", mi.PackfileChecksum, sum)
		}
		p := packfile.NewPackfile(mi, nil, &memFile{name: "pack", Reader: bytes.NewReader(pack)}, 0)
		for _, o := range objs {
			got, err := p.Get(o.Hash())
			if err != nil {
				t.Fatalf("object %s: %v", o.Hash(), err)
			}
			if got.Type() != o.Type() || !bytes.Equal(content(t, got), content(t, o)) {
				t.Fatalf("object %s came back as %s %q", o.Hash(), got.Type(), content(t, got))
			}
		}
	})
}

func content(t *testing.T, o plumbing.EncodedObject) []byte {
	t.Helper()
	r, err := o.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
