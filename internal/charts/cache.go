package charts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// flight runs one call per key at a time and shares its result with the
// callers that arrive meanwhile; with keep it also memoises successes.
type flight[T any] struct {
	mu    sync.Mutex
	calls map[string]*call[T]
}

type call[T any] struct {
	done chan struct{}
	val  T
	err  error
}

func (f *flight[T]) do(ctx context.Context, key string, keep bool, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	for {
		f.mu.Lock()
		if c, ok := f.calls[key]; ok {
			f.mu.Unlock()
			select {
			case <-c.done:
			case <-ctx.Done():
				return zero, ctx.Err()
			}
			// The leader's own context may have been cancelled; that is
			// no reason to fail a caller whose context is still live.
			if c.err != nil && ctx.Err() == nil && isContextErr(c.err) {
				continue
			}
			return c.val, c.err
		}
		if f.calls == nil {
			f.calls = map[string]*call[T]{}
		}
		c := &call[T]{done: make(chan struct{})}
		f.calls[key] = c
		f.mu.Unlock()
		f.run(ctx, key, keep, c, fn)
		return c.val, c.err
	}
}

func (f *flight[T]) run(ctx context.Context, key string, keep bool, c *call[T], fn func(context.Context) (T, error)) {
	defer func() {
		f.mu.Lock()
		if c.err != nil || !keep {
			delete(f.calls, key)
		}
		f.mu.Unlock()
		close(c.done)
	}()
	c.val, c.err = fn(ctx)
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func cacheKey(r *repoRef, chart, version string) string {
	return r.display + "|" + chart + "|" + version
}

// cachePath names a cache file by a hash of the key, so any repository
// URL maps to one safe file name; the readable prefix is for people.
func (c *Client) cachePath(key, chart, version string) string {
	sum := sha256.Sum256([]byte(key))
	name := safeName(path.Base(chart)) + "-" + safeName(version) + "-" + hex.EncodeToString(sum[:8]) + ".tgz"
	return filepath.Join(c.CacheDir, name)
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' || r == '+' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

func (c *Client) readCache(key, chart, version string) ([]byte, bool) {
	if c.CacheDir == "" {
		return nil, false
	}
	data, err := os.ReadFile(c.cachePath(key, chart, version))
	return data, err == nil
}

// writeCache writes through a temporary file and a rename, so a reader
// in another process sees either no file or the whole archive.
func (c *Client) writeCache(key, chart, version string, data []byte) error {
	if c.CacheDir == "" {
		return nil
	}
	if err := os.MkdirAll(c.CacheDir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.CacheDir, ".tmp-*.tgz")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil && cerr == nil {
		werr = os.Rename(tmp.Name(), c.cachePath(key, chart, version))
	}
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return errors.Join(werr, cerr)
	}
	return nil
}
