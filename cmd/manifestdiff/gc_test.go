package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// The soft limit is set unless GOMEMLIMIT is; the heap growth of
// discovery is left alone.
func TestTuneGC(t *testing.T) {
	was := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(was); debug.SetMemoryLimit(limit) })
	for _, tt := range []struct {
		env   map[string]string
		limit int64
	}{
		{map[string]string{}, 220 << 20},
		{map[string]string{"GOMEMLIMIT": "1GiB"}, math.MaxInt64},
	} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		tuneGC(func(k string) string { return tt.env[k] })
		if got := debug.SetGCPercent(100); got != 100 {
			t.Errorf("%v: discovery runs at %d, want Go's default 100", tt.env, got)
		}
		if got := debug.SetMemoryLimit(-1); got != tt.limit {
			t.Errorf("%v: soft limit %d, want %d", tt.env, got, tt.limit)
		}
	}
}
