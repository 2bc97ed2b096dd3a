package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// The renders run at twice Go's default heap growth unless GOGC says
// otherwise; discovery keeps what the process started with, and the
// report is written at Go's default again.
func TestRenderingGC(t *testing.T) {
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(was) })
	tests := []struct {
		gogc      string
		rendering int
		reporting int
	}{
		{"", 200, 100},
		{"50", 100, 300}, // the user's GOGC (the runtime read it at start) stands
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
		debug.SetGCPercent(300) // whatever the renders left
		reportingGC(getenv)
		if got := debug.SetGCPercent(100); got != tt.reporting {
			t.Errorf("GOGC=%q: the report is written at %d, want %d", tt.gogc, got, tt.reporting)
		}
	}
}

// Discovery runs at 75 unless GOGC says otherwise; the soft limit is set
// unless GOMEMLIMIT is.
func TestTuneGC(t *testing.T) {
	was := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(was); debug.SetMemoryLimit(limit) })
	for _, tt := range []struct {
		env     map[string]string
		percent int
		limit   int64
	}{
		{map[string]string{}, discoveryGC, 220 << 20},
		{map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}, 100, math.MaxInt64},
	} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		tuneGC(func(k string) string { return tt.env[k] })
		if got := debug.SetGCPercent(100); got != tt.percent {
			t.Errorf("%v: discovery runs at %d, want %d", tt.env, got, tt.percent)
		}
		if got := debug.SetMemoryLimit(-1); got != tt.limit {
			t.Errorf("%v: soft limit %d, want %d", tt.env, got, tt.limit)
		}
	}
}
