package git

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// The cache keeps at most its size, dropping the least recently used
// first, and never takes an object bigger than a quarter of it.
func TestObjectCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := newObjectCache(40)
	obj := func(n int) packedObject { return packedObject{typ: plumbing.BlobObject, data: make([]byte, n)} }
	h := func(b byte) plumbing.Hash { return plumbing.Hash{b} }
	c.put(h(1), obj(10))
	c.put(h(2), obj(10))
	c.put(h(3), obj(10))
	c.get(h(1)) // 2 is now the least recently used
	c.put(h(4), obj(10))
	c.put(h(5), obj(10)) // 50 bytes: 2 goes
	c.put(h(6), obj(11)) // more than a quarter: not kept
	for b, want := range map[byte]bool{1: true, 2: false, 3: true, 4: true, 5: true, 6: false} {
		if _, ok := c.get(h(b)); ok != want {
			t.Errorf("object %d cached: %v, want %v", b, ok, want)
		}
	}
	if c.size != 40 {
		t.Errorf("size %d, want 40", c.size)
	}
}
