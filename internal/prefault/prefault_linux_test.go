//go:build linux

package prefault

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestPopulateMapsThePagesTheNextAllocationGets: after populate, the whole
// range it reports is resident before anything touches it, and the next
// span the heap hands out lies in it, which is the premise of the package:
// the frontier probe finds where the runtime allocates next. Like promote,
// it runs in a fresh process whose heap no collection has left holes in
// (a hole below the frontier takes the next span first).
//
// On a loaded machine the runtime may free a goroutine's stack below the
// frontier between the probe and the allocation (seen once in 60 runs
// beside four busy loops), which costs promote a few page faults and
// nothing else; the test tries three fresh processes and fails when none
// holds the premise.
func TestPopulateMapsThePagesTheNextAllocationGets(t *testing.T) {
	if os.Getenv("PREFAULT_TEST_CHILD") == "" {
		var outs []string
		for range 3 {
			cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
			// GOGC=off as promote runs (no collection in init, none after
			// main turns it off): no sweep leaves free pages below the frontier
			cmd.Env = append(os.Environ(), "PREFAULT_TEST_CHILD=1", "GOGC=off")
			out, err := cmd.CombinedOutput()
			if err == nil && strings.Contains(string(out), "--- SKIP: "+t.Name()) {
				t.Skipf("in a fresh process:\n%s", out)
			}
			if err == nil && strings.Contains(string(out), "--- PASS: "+t.Name()) {
				return
			}
			outs = append(outs, fmt.Sprintf("%v\n%s", err, out))
		}
		t.Fatalf("in three fresh processes:\n%s", strings.Join(outs, "\n"))
	}
	const want = 1 << 20
	lo, hi, err := populate(want)
	if errors.Is(err, syscall.EINVAL) {
		t.Skip("this kernel has no MADV_POPULATE_WRITE (Linux 5.14)")
	}
	if err != nil {
		t.Fatalf("populate: %v", err)
	}
	if hi-lo != want {
		t.Fatalf("populated %d bytes, want %d", hi-lo, want)
	}
	if missing := nonResident(t, lo, hi); missing > 0 {
		t.Fatalf("%d of %d populated pages are not resident", missing, (hi-lo)/uintptr(syscall.Getpagesize()))
	}
	next = make([]byte, 64<<10)
	at := uintptr(unsafe.Pointer(unsafe.SliceData(next)))
	if at < lo || at+uintptr(len(next)) > hi {
		t.Fatalf("the next span is at %#x, outside the populated %#x-%#x", at, lo, hi)
	}
	for i, b := range next {
		if b != 0 {
			t.Fatalf("byte %d of a fresh allocation in populated memory is %d", i, b)
		}
	}
}

// next is a package variable so that the allocation escapes: a local slice
// of constant size may be put on the goroutine's stack.
var next []byte

// nonResident counts the pages of [lo, hi) that mincore says are not in
// memory.
func nonResident(t *testing.T, lo, hi uintptr) int {
	t.Helper()
	page := uintptr(syscall.Getpagesize())
	vec := make([]byte, (hi-lo+page-1)/page)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, lo, hi-lo, uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		if v&1 == 0 {
			n++
		}
	}
	return n
}

// TestMappingEndRefusesWhatIsNotHeap: an address in the program's text is
// in a mapping, but not a writable private one.
func TestMappingEndRefusesWhatIsNotHeap(t *testing.T) {
	text := uintptr(unsafe.Pointer(unsafe.StringData("read-only data of the test binary")))
	if _, err := mappingEnd(text); !errors.Is(err, errNoMapping) {
		t.Fatalf("mappingEnd(rodata) = %v, want errNoMapping", err)
	}
	if _, err := mappingEnd(8); !errors.Is(err, errNoMapping) {
		t.Fatalf("mappingEnd(8) = %v, want errNoMapping", err)
	}
}
