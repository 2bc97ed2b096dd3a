// Package prefault has the kernel map, ahead of use, the Go heap pages a
// short run is about to allocate.
//
// A promotion allocates about 3 MB and exits within 10 ms. Each fresh heap
// page costs a page fault on first touch (about 1 µs in a VM, more when the
// fault's TLB flush interrupts the other core), and those faults land on
// the run's critical path: about 600 of them per `promote apply`. While
// package init runs on one core, a goroutine on the other asks the kernel
// to populate the next few MB above the heap's allocation frontier in a
// few calls (MADV_POPULATE_WRITE, Linux 5.14), so that the run finds them
// mapped. docs/benchmarks.md has the measurement.
//
// It is best effort and changes nothing a program can observe but time and
// resident memory: populating writes no data, the runtime's fresh pages
// stay zero, and any failure (another OS, an older kernel, a heap laid out
// differently) leaves the heap as it was.
//
// This package imports only packages the runtime initializes first, so
// that an importer's init can start it before the heavy package inits of
// the program; keep it that way (cmd/promote's TestPrefaultStartsEarly).
package prefault

// Heap starts populating, in the background, up to want bytes of the Go
// heap above its allocation frontier. It returns at once; it does nothing
// with one usable core, where populating would only take the core from
// the run it is meant to speed up.
func Heap(want int) {
	if want > 0 {
		start(uintptr(want))
	}
}
