package suggest

import (
	"slices"
	"testing"
)

func TestClose(t *testing.T) {
	names := []string{"from", "to", "only", "force-path", "skip-chart-check", "output"}
	for typed, want := range map[string][]string{
		"form": {"from"}, "fro": {"from"}, "skip-chart-chek": {"skip-chart-check"}, "outptu": {"output"},
		"xyzzy": nil, "t": nil,
	} {
		if got := Close(typed, names); !slices.Equal(got, want) {
			t.Errorf("Close(%q) = %q, want %q", typed, got, want)
		}
	}
}

func TestHint(t *testing.T) {
	for _, tc := range []struct{ typed, want string }{
		{"version", " (did you mean versions?)"},
		{"imageTg", " (did you mean imageTag?)"},
		{"xyzzy", ""},
	} {
		if got := Hint("", tc.typed, []string{"versions", "imageTag", "chartVersion"}); got != tc.want {
			t.Errorf("Hint(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
	if got := Or([]string{"a", "b", "c"}); got != "a, b or c" {
		t.Errorf("Or = %q", got)
	}
}
