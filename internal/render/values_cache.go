package render

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"
)

// Value files repeat across renders: every app of an env reads the same
// versions and common files, and base and head read the same node file
// when only the chart moved. Parsing YAML costs far more than copying the
// tree, so each parser's result is kept per content and handed out as a
// deep copy: the merge, --set and Helm's coalescing write into the maps
// they get, and renders run in parallel.
type valuesCache struct {
	parse func([]byte) (map[string]any, error)
	m     sync.Map // [32]byte -> map[string]any
	n     atomic.Int64
}

// maxCachedValueFiles bounds the cache: a run that reads more distinct
// value files than this parses the rest each time.
const maxCachedValueFiles = 4096

func (c *valuesCache) load(data []byte) (map[string]any, error) {
	key := sha256.Sum256(data)
	if v, ok := c.m.Load(key); ok {
		return copyValues(v.(map[string]any)), nil
	}
	v, err := c.parse(data)
	if err != nil {
		return nil, err
	}
	if c.n.Load() < maxCachedValueFiles {
		if _, loaded := c.m.LoadOrStore(key, v); !loaded {
			c.n.Add(1)
		}
		return copyValues(v), nil // the cached tree is never handed out
	}
	return v, nil
}

// copyValues deep-copies a values tree as YAML decoding builds it: maps
// and lists are copied, scalars are immutable.
func copyValues(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return copyValues(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}
