//go:build crashtest

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// timing is when an uninterrupted apply reaches its phases, measured from
// Start: the kill delays are chosen from it, nothing asserts on it.
type timing struct {
	total time.Duration
	// journal and cleared bound the window in which the journal exists:
	// HEAD moves and the work tree is written inside it. Zero if polling
	// never saw the journal.
	journal, cleared time.Duration
}

// measureApply times three uninterrupted runs and keeps the median of
// each phase, polling for the journal file to find the write window.
func measureApply(t *testing.T, proto string) timing {
	t.Helper()
	var runs []timing
	for i := range 3 {
		dir := copyRepo(t, proto, fmt.Sprintf("measure%d", i))
		journal := filepath.Join(dir, ".git", journalFile)
		cmd, _, stderr := promoteCmd(t, dir, processEnv(t), applyArgs...)
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var m timing
	poll:
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("apply: %v: %s", err, stderr)
				}
				break poll
			default:
			}
			_, err := os.Stat(journal)
			switch {
			case err == nil && m.journal == 0:
				m.journal = time.Since(start)
			case err != nil && m.journal != 0 && m.cleared == 0:
				m.cleared = time.Since(start)
			}
			time.Sleep(20 * time.Microsecond)
		}
		m.total = time.Since(start)
		runs = append(runs, m)
	}
	median := func(get func(timing) time.Duration) time.Duration {
		ds := []time.Duration{get(runs[0]), get(runs[1]), get(runs[2])}
		slices.Sort(ds)
		return ds[1]
	}
	return timing{total: median(func(m timing) time.Duration { return m.total }),
		journal: median(func(m timing) time.Duration { return m.journal }),
		cleared: median(func(m timing) time.Duration { return m.cleared })}
}

// killDelay picks the delay of iteration i: even iterations sweep the
// whole run and beyond (stratified over [0, 1.3 x total), the first at
// 0), odd ones the journal window and a millisecond either side, where
// the interesting states are but a uniform sweep rarely lands.
func killDelay(i int, m timing) time.Duration {
	lo, hi := time.Duration(0), time.Duration(1.3*float64(m.total))
	n, k := (killIterations+1)/2, i/2
	if i%2 == 1 && m.journal != 0 && m.cleared > m.journal {
		lo, hi = max(0, m.journal-time.Millisecond), m.cleared+time.Millisecond
		n = killIterations / 2
	}
	if i == 0 {
		return 0
	}
	return lo + time.Duration((float64(k)+rand.Float64())/float64(n)*float64(hi-lo))
}
