package argo

import (
	"errors"
	"fmt"
	"strings"
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
// the time. A whole-list YAML re-encode made it superlinear; the bound
// (25x for 10x, best of two small runs: a larger heap costs the collector
// more, 15-17x measured on a loaded 2-core machine) leaves room for load
// and still fails a quadratic expansion (100x).
func TestListGeneratorLinear(t *testing.T) {
	for _, goTmpl := range []bool{false, true} {
		t.Run(fmt.Sprint("goTemplate=", goTmpl), func(t *testing.T) {
			small, large := listAppSet(10_000, goTmpl), listAppSet(100_000, goTmpl)
			discover := func(m string, n int) time.Duration {
				start := time.Now()
				apps, err := Discover(tree(m), testConfig(t), "qa")
				if err != nil || len(apps) != n {
					t.Fatalf("%d elements: %d apps, %v", n, len(apps), err)
				}
				return time.Since(start)
			}
			s := min(discover(small, 10_000), discover(small, 10_000))
			l := discover(large, 100_000)
			t.Logf("10k elements %v, 100k %v (%.1fx)", s, l, float64(l)/float64(s))
			if l > 25*s {
				t.Errorf("100k elements took %v, more than 25 times 10k's %v", l, s)
			}
		})
	}
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
