package diff

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// numbered returns lines "prefix1".."prefixN", each with a newline.
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d\n", prefix, i+1)
	}
	return out
}

func edit(lines []string, f func([]string) []string) string {
	return strings.Join(f(append([]string(nil), lines...)), "")
}

func unifiedCases() []struct{ name, a, b string } {
	base := numbered("line ", 40)
	return []struct{ name, a, b string }{
		{"one change", strings.Join(base, ""), edit(base, func(l []string) []string { l[19] = "changed\n"; return l })},
		{"from empty", "", "a\nb\nc\n"},
		{"to empty", "a\nb\n", ""},
		{"one line each", "a\n", "b\n"},
		{"two far changes", strings.Join(base, ""), edit(base, func(l []string) []string { l[2] = "x\n"; l[30] = "y\n"; return l })},
		{"changes 6 apart merge", strings.Join(base, ""), edit(base, func(l []string) []string { l[10] = "x\n"; l[17] = "y\n"; return l })},
		{"changes 7 apart split", strings.Join(base, ""), edit(base, func(l []string) []string { l[10] = "x\n"; l[18] = "y\n"; return l })},
		{"insert at start", strings.Join(base, ""), "new\n" + strings.Join(base, "")},
		{"append at end", strings.Join(base, ""), strings.Join(base, "") + "new\n"},
		{"delete block", strings.Join(base, ""), edit(base, func(l []string) []string { return append(l[:5], l[12:]...) })},
		{"no newline at end", "a\nb\nc", "a\nb\nd"},
		{"newline added at end", "a\nb", "a\nb\n"},
		{"sparse edits", strings.Join(numbered("l", 300), ""), edit(numbered("l", 300), func(l []string) []string {
			for i := 7; i < len(l); i += 37 {
				l[i] = fmt.Sprintf("edited %d\n", i)
			}
			return append(l[:150], append([]string{"ins1\n", "ins2\n"}, l[155:]...)...)
		})},
		{"yaml", "kind: A\nspec:\n  replicas: 1\n  image: x:1\n", "kind: A\nspec:\n  image: x:2\n  replicas: 1\n  resources: {}\n"},
	}
}

// TestUnifiedMatchesGNUDiff compares the formatter byte for byte with the
// diff on this machine.
func TestUnifiedMatchesGNUDiff(t *testing.T) {
	diffBin, err := exec.LookPath("diff")
	if err != nil {
		// a parity check that does not run proves nothing: fail, never skip
		t.Fatalf("GNU diff, which this test compares the formatter with, is not in PATH (%v): install diffutils (Debian: apt-get install diffutils; .ci/run does)", err)
	}
	dir := t.TempDir()
	for _, tc := range unifiedCases() {
		for _, ctx := range []int{3, 1, 0} {
			t.Run(fmt.Sprintf("%s/U%d", tc.name, ctx), func(t *testing.T) {
				fa, fb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
				if err := os.WriteFile(fa, []byte(tc.a), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(fb, []byte(tc.b), 0o600); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(diffBin, fmt.Sprintf("-U%d", ctx), "--label", "a", "--label", "b", fa, fb)
				want, err := cmd.Output()
				var exit *exec.ExitError
				if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
					t.Fatalf("diff: %v", err)
				}
				got := Unified(tc.a, tc.b, "a", "b", ctx)
				if got != string(want) {
					t.Errorf("mismatch\n--- got\n%s\n--- diff -u\n%s", got, want)
				}
			})
		}
	}
}

func TestUnifiedEqual(t *testing.T) {
	if got := Unified("a\n", "a\n", "a", "b", 3); got != "" {
		t.Errorf("equal inputs gave %q", got)
	}
}
