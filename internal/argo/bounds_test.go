package argo

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// listAppSet is an ApplicationSet whose list generator has n elements.
func listAppSet(n int, goTmpl bool) string {
	var b strings.Builder
	b.WriteString("      - list:\n          elements:\n")
	for i := range n {
		fmt.Fprintf(&b, "          - {name: app-%d, ns: ns-%d}\n", i, i)
	}
	if goTmpl {
		return appSet("  goTemplate: true", b.String(), "'{{.name}}'", "")
	}
	return appSet("", b.String(), "'{{name}}'", "")
}

// TestListGeneratorLinear: ten times the elements cost about ten times
// as much. A whole-list YAML re-encode per element made it quadratic
// (100x for 10x). Measured in what load does not change: the bytes
// allocated (a re-encode allocates the list again per element; 10x here,
// the bound 25x) and the process's CPU time, best of two small runs (a
// larger heap costs the collector more: 12-17x measured; the bound 40x).
// Wall-clock time is not: at load 7 on 2 cores, 100k elements took 35x
// the time of 10k.
func TestListGeneratorLinear(t *testing.T) {
	for _, goTmpl := range []bool{false, true} {
		t.Run(fmt.Sprint("goTemplate=", goTmpl), func(t *testing.T) {
			small, large := listAppSet(10_000, goTmpl), listAppSet(100_000, goTmpl)
			discover := func(m string, n int) (time.Duration, uint64) {
				return costOf(func() {
					apps, err := Discover(tree(m), testConfig(t), "qa")
					if err != nil || len(apps) != n {
						t.Fatalf("%d elements: %d apps, %v", n, len(apps), err)
					}
				})
			}
			s1, sb := discover(small, 10_000)
			s2, _ := discover(small, 10_000)
			s := min(s1, s2)
			l, lb := discover(large, 100_000)
			t.Logf("10k elements %v of CPU, %d MB allocated; 100k %v (%.1fx), %d MB (%.1fx)",
				s, sb>>20, l, float64(l)/float64(s), lb>>20, float64(lb)/float64(sb))
			if lb > 25*sb {
				t.Errorf("100k elements allocated %d MB, more than 25 times 10k's %d MB", lb>>20, sb>>20)
			}
			if l > 40*s {
				t.Errorf("100k elements took %v of CPU, more than 40 times 10k's %v", l, s)
			}
		})
	}
}

// costOf runs f and returns the CPU time the process spent (user and
// system, every thread: the collector's too) and the bytes it allocated.
func costOf(f func()) (time.Duration, uint64) {
	var m0, m1 runtime.MemStats
	var r0, r1 syscall.Rusage
	runtime.ReadMemStats(&m0)
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r0); err != nil {
		panic(err)
	}
	f()
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r1); err != nil {
		panic(err)
	}
	runtime.ReadMemStats(&m1)
	cpu := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return cpu(r1) - cpu(r0), m1.TotalAlloc - m0.TotalAlloc
}

// TestGeneratedAppsBounded: a matrix of two lists multiplies them; past
// MaxGeneratedApps the ApplicationSet fails on its own, and others of the
// env still discover.
func TestGeneratedAppsBounded(t *testing.T) {
	list := func(n int, key string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "          - list:\n              elements:\n")
		for i := range n {
			fmt.Fprintf(&b, "              - {%s: \"%d\"}\n", key, i)
		}
		return b.String()
	}
	tests := []struct {
		name, gens string
		want       int // apps; -1: the bound's error
	}{
		{"matrix at the bound", "      - matrix:\n          generators:\n" + list(1000, "a") + list(100, "b"), MaxGeneratedApps},
		{"matrix past the bound", "      - matrix:\n          generators:\n" + list(1000, "a") + list(101, "b"), -1},
		{"two generators past the bound", "      - matrix:\n          generators:\n" + list(1000, "a") + list(100, "b") +
			"      - list:\n          elements:\n          - {a: x, b: z}\n", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := appSet("", tc.gens, "'{{a}}-{{b}}'", "")
			apps, err := DiscoverWith(tree(m), testConfig(t), "qa", DiscoverOptions{})
			if tc.want >= 0 {
				if err != nil || len(apps) != tc.want {
					t.Fatalf("%d apps, %v; want %d", len(apps), err, tc.want)
				}
				return
			}
			var derr *DiscoveryError
			if !errors.As(err, &derr) || len(derr.Failures) != 1 || !errors.Is(derr.Failures[0].Err, ErrTooManyApps) ||
				!strings.Contains(err.Error(), "applicationset set: ") || !strings.Contains(err.Error(), "more than 100000") {
				t.Fatalf("err %v; want ErrTooManyApps naming the applicationset", err)
			}
		})
	}
}
