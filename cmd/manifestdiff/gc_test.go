package main

import (
	"runtime/debug"
	"testing"
)

// The renders run at twice Go's default heap growth unless GOGC says
// otherwise; discovery keeps what the process started with.
func TestRenderingGC(t *testing.T) {
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(was) })
	tests := []struct {
		gogc string
		want int
	}{
		{"", 200},
		{"50", 100}, // the user's GOGC (the runtime read it at start) stands
	}
	for _, tt := range tests {
		debug.SetGCPercent(100)
		renderingGC(func(k string) string {
			if k == "GOGC" {
				return tt.gogc
			}
			return ""
		})()
		if got := debug.SetGCPercent(100); got != tt.want {
			t.Errorf("GOGC=%q: the renders run at %d, want %d", tt.gogc, got, tt.want)
		}
	}
}
