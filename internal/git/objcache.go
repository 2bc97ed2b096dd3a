package git

import (
	"container/list"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// objectCache keeps the objects the pack reader read last, up to a size:
// manifestdiff reads the same value files and templates for many apps,
// and go-git's object cache did this for its own reads (its default
// size, 96 MiB, is the bound here too).
type objectCache struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // front: most recently used
	items map[plumbing.Hash]*list.Element
}

type cachedObject struct {
	h plumbing.Hash
	o packedObject
}

func newObjectCache(max int) *objectCache {
	return &objectCache{max: max, order: list.New(), items: map[plumbing.Hash]*list.Element{}}
}

func (c *objectCache) get(h plumbing.Hash) (packedObject, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[h]
	if !ok {
		return packedObject{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(cachedObject).o, true
}

func (c *objectCache) put(h plumbing.Hash, o packedObject) {
	if len(o.data) > c.max/4 {
		return // one object would push out a quarter of the rest
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[h]; ok {
		return
	}
	c.items[h] = c.order.PushFront(cachedObject{h, o})
	c.size += len(o.data)
	for c.size > c.max {
		last := c.order.Back()
		old := last.Value.(cachedObject)
		c.order.Remove(last)
		delete(c.items, old.h)
		c.size -= len(old.o.data)
	}
}
