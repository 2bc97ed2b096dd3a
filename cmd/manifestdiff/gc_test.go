package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// The renders run at twice Go's default heap growth unless GOGC says
// otherwise.
func TestRenderingGC(t *testing.T) {
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(was) })
	tests := []struct {
		gogc      string
		rendering int
	}{
		{"", 200},
		{"50", 100}, // the user's GOGC (the runtime read it at start) stands
	}
	for _, tt := range tests {
		getenv := func(k string) string {
			if k == "GOGC" {
				return tt.gogc
			}
			return ""
		}
		debug.SetGCPercent(100)
		renderingGC(getenv)()
		if got := debug.SetGCPercent(100); got != tt.rendering {
			t.Errorf("GOGC=%q: the renders run at %d, want %d", tt.gogc, got, tt.rendering)
		}
	}
}

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
