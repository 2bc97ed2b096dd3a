package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// Profiling, for docs/benchmarks.md: MANIFESTDIFF_CPUPROFILE, _MEMPROFILE
// (heap, after the run) and _TRACE name files to write pprof CPU and heap
// profiles and a runtime/trace of one run to. Environment variables, not
// flags: they are for measuring the tool, not for using it.
const (
	envCPUProfile = "MANIFESTDIFF_CPUPROFILE"
	envMemProfile = "MANIFESTDIFF_MEMPROFILE"
	envTrace      = "MANIFESTDIFF_TRACE"
)

// startProfiles starts what getenv asks for and returns the function that
// stops it and writes the files; a file that cannot be written is a
// warning on stderr, never a failed run.
func startProfiles(ios *ioStreams, getenv func(string) string) (stop func()) {
	var stops []func()
	warn := func(what string, err error) {
		fmt.Fprintf(ios.ErrOut, "manifestdiff: warning: %s: %v\n", what, err)
	}
	if path := getenv(envCPUProfile); path != "" {
		if f, err := os.Create(path); err != nil {
			warn(envCPUProfile, err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			warn(envCPUProfile, err)
			f.Close()
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := getenv(envTrace); path != "" {
		if f, err := os.Create(path); err != nil {
			warn(envTrace, err)
		} else if err := trace.Start(f); err != nil {
			warn(envTrace, err)
			f.Close()
		} else {
			stops = append(stops, func() { trace.Stop(); f.Close() })
		}
	}
	if path := getenv(envMemProfile); path != "" {
		runtime.MemProfileRate = 64 << 10 // finer than the default, for allocation sites
		stops = append(stops, func() {
			f, err := os.Create(path)
			if err != nil {
				warn(envMemProfile, err)
				return
			}
			defer f.Close()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				warn(envMemProfile, err)
			}
		})
	}
	return func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
}
