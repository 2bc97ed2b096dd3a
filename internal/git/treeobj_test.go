package git

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
)

// treeBytes encodes entries as git writes a tree object.
func treeBytes(entries ...object.TreeEntry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&b, "%o %s\x00", uint32(e.Mode), e.Name)
		b.Write(e.Hash[:])
	}
	return b.Bytes()
}

func TestParseTree(t *testing.T) {
	h := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	small := []object.TreeEntry{{Name: "a.yaml", Mode: filemode.Regular, Hash: h}, {Name: "dir", Mode: filemode.Dir, Hash: h}}
	var large []object.TreeEntry
	for i := range smallTree + 5 {
		large = append(large, object.TreeEntry{Name: fmt.Sprintf("f%02d", i), Mode: filemode.Executable, Hash: h})
	}
	tests := []struct {
		name string
		data []byte
		want []object.TreeEntry // nil: an error
	}{
		{"small", treeBytes(small...), small},
		{"large, looked up by map", treeBytes(large...), large},
		{"empty", nil, []object.TreeEntry{}},
		{"group-writable file reads as regular", []byte("100664 x\x00" + string(h[:])), []object.TreeEntry{{Name: "x", Mode: filemode.Regular, Hash: h}}},
		{"unknown type reads as a submodule", []byte("170000 s\x00" + string(h[:])), []object.TreeEntry{{Name: "s", Mode: filemode.Submodule, Hash: h}}},
		{"no mode", []byte(" x\x00" + string(h[:])), nil},
		{"mode not octal", []byte("10064x x\x00" + string(h[:])), nil},
		{"no name", []byte("100644 \x00" + string(h[:])), nil},
		{"no name terminator", []byte("100644 x"), nil},
		{"short hash", []byte("100644 x\x00" + string(h[:19])), nil},
		{"trailing garbage", append(treeBytes(small...), '1'), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTree(tt.data)
			if tt.want == nil {
				if !errors.Is(err, errBadTree) {
					t.Fatalf("parseTree = %v, %v; want errBadTree", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.entries, cmp.Comparer(func(a, b []object.TreeEntry) bool {
				return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b))
			})); diff != "" {
				t.Fatalf("entries (-want +got):\n%s", diff)
			}
			for _, e := range tt.want {
				if f, ok := got.find(e.Name); !ok || f != e {
					t.Errorf("find(%s) = %v, %v", e.Name, f, ok)
				}
			}
			if _, ok := got.find("missing"); ok {
				t.Error("find(missing) found an entry")
			}
		})
	}
}

// FuzzParseTree: our tree decoder accepts exactly what go-git's does, with
// the same entries, and finds every name go-git finds.
func FuzzParseTree(f *testing.F) {
	h := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	f.Add(treeBytes(object.TreeEntry{Name: "a", Mode: filemode.Regular, Hash: h}, object.TreeEntry{Name: "b", Mode: filemode.Dir, Hash: h}))
	f.Add([]byte("100664 x\x00" + string(h[:])))
	f.Add([]byte("120000 l\x00" + string(h[:]) + "40000 d\x00" + string(h[:19])))
	f.Fuzz(func(t *testing.T, data []byte) {
		ours, err := parseTree(data)
		o := &plumbing.MemoryObject{}
		o.SetType(plumbing.TreeObject)
		o.Write(data)
		var theirs object.Tree
		gerr := theirs.Decode(o)
		if (err == nil) != (gerr == nil) {
			t.Fatalf("parseTree error %v, go-git's %v", err, gerr)
		}
		if err != nil {
			return
		}
		if len(ours.entries) != len(theirs.Entries) || (len(ours.entries) > 0 && !cmp.Equal(ours.entries, theirs.Entries)) {
			t.Fatalf("entries differ:\n%v\n%v", ours.entries, theirs.Entries)
		}
		for _, e := range theirs.Entries {
			if _, ok := ours.find(e.Name); !ok {
				t.Fatalf("find(%q) misses an entry", e.Name)
			}
		}
	})
}
