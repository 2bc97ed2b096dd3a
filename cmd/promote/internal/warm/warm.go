// Package warm starts populating the heap (internal/prefault) for a run of
// promote. It is a package of its own, imported by main for its init alone,
// because main's own init runs after every other package's: this one,
// importing only packages the runtime initializes first, is initialized
// before the heavy package inits (go-git, sprig, the GitLab client), and
// its goroutine populates on the other core while they run on this one.
package warm

import (
	"syscall"

	"github.com/gitops-promote/gitops-promote/internal/prefault"
)

// heapAhead is how much heap to populate. `promote apply` on the bench's
// 12-node repository allocates about 2.6 MB; 3 MB measured best against 2
// and 4 (docs/benchmarks.md). A larger promotion faults in the rest as
// before.
const heapAhead = 3 << 20

func init() {
	// PROMOTE_PREFAULT=0 turns it off, for measuring it (make bench
	// documents the A/B) or for a kernel that misbehaves.
	if v, _ := syscall.Getenv("PROMOTE_PREFAULT"); v != "0" {
		prefault.Heap(heapAhead)
	}
}
