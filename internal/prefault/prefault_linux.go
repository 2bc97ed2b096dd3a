//go:build linux

package prefault

import (
	"errors"
	"runtime"
	"syscall"
	"unsafe"
)

const (
	madvPopulateWrite = 23 // MADV_POPULATE_WRITE (Linux 5.14)
	// step is populated per call: the kernel holds the address space's
	// lock for one call, and a thread of the run that needs it for
	// writing (a new stack, a heap growth) waits for at most one step.
	step = 256 << 10
	// maxFiller bounds the allocation that moves the frontier past the
	// end of the heap mapping (see populate). Package init runs with the
	// garbage collector on, and its first cycle starts at about 3 MB of
	// heap in promote. With promote's inits, fillers of up to 2 MB started
	// no cycle in 300 runs; fillers of up to 2.5 MB started one in 14 of
	// 200 (cmd/promote's TestPrefaultStartsNoCollection). Promote's inits
	// have since grown a little: 1.5 MB keeps the margin.
	maxFiller = 3 << 19
	// probeSize is above the 32 KiB limit of the size classes: the probe
	// gets a span of its own from the lowest free pages, the frontier.
	probeSize = 40 << 10
)

var errNoMapping = errors.New("no writable private mapping holds the heap frontier")

// probe and filler stay referenced, so a garbage collection during init
// cannot hand their pages back below the populated range.
var probe, filler []byte

func start(want uintptr) {
	if runtime.GOMAXPROCS(0) < 2 {
		return
	}
	go func() { _, _, _ = populate(want) }()
}

// populate has the kernel map up to want bytes from the heap frontier to
// the end of the heap mapping that holds it, and returns the range it
// populated. The runtime maps the heap 4 MB at a time, and Go 1.26 starts
// it at a random offset in the first 4 MB, so the rest of the current
// mapping can be short; when it is shorter than want (and than
// maxFiller), one allocation a little larger than that rest, never
// touched, makes the runtime map the next 4 MB at once and leaves the
// frontier there.
func populate(want uintptr) (lo, hi uintptr, err error) {
	f, end, err := frontier()
	if err != nil {
		return 0, 0, err
	}
	if room := end - f; room < want && room < maxFiller {
		filler = make([]byte, room+64<<10)
		if f, end, err = frontier(); err != nil {
			return 0, 0, err
		}
	}
	end = min(end, f+want)
	for a := f; a < end; a += step {
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, a, min(step, end-a), madvPopulateWrite); e != 0 {
			return f, a, e
		}
	}
	return f, end, nil
}

// frontier allocates the probe and returns the page-aligned address just
// above it, where the heap's next span goes, and the end of the heap
// mapping that holds the probe: the frontier can be that end.
func frontier() (f, end uintptr, err error) {
	probe = make([]byte, probeSize)
	at := uintptr(unsafe.Pointer(unsafe.SliceData(probe)))
	if end, err = mappingEnd(at); err != nil {
		return 0, 0, err
	}
	page := uintptr(syscall.Getpagesize()) // 4 KB, or 16 or 64 KB on some arm64 kernels
	f = (at + probeSize + page - 1) &^ (page - 1)
	return min(f, end), end, nil
}

// mappingEnd returns the end of the writable private mapping that holds
// addr, from /proc/self/maps (read with bare system calls: see the package
// comment on imports).
func mappingEnd(addr uintptr) (uintptr, error) {
	fd, err := syscall.Open("/proc/self/maps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	var buf [4096]byte
	var line []byte
	for {
		n, err := syscall.Read(fd, buf[:])
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, errNoMapping
		}
		for _, c := range buf[:n] {
			if c != '\n' {
				line = append(line, c)
				continue
			}
			if lo, hi, perms, ok := parseRange(line); ok && lo <= addr && addr < hi {
				if perms != "rw-p" {
					return 0, errNoMapping
				}
				return hi, nil
			}
			line = line[:0]
		}
	}
}
