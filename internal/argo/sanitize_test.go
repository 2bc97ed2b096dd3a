package argo

import (
	"strings"
	"testing"
)

// SanitizeName is Argo CD's normalize: lower case, every rune outside
// [-a-z0-9.] one "-", at most 253 bytes, no leading or trailing "-" or ".".
func TestSanitizeName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"Node-Alpha", "node-alpha"},
		{"Node_Alpha", "node-alpha"},
		{"node_beta.2", "node-beta.2"},
		{"--x--", "x"},
		{"..", ""},
		{"ÄÖü", ""},
		{"aÄb", "a-b"},
		{"a b\tc", "a-b-c"},
		{"a\xffb", "a-b"},
		{strings.Repeat("A_", 200), strings.Repeat("a-", 126) + "a"},
	}
	for _, tc := range tests {
		if got := SanitizeName(tc.in); got != tc.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
