//go:build browser

package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A test binary's TMPDIR can be too deep for chromium's singleton socket
// (cmd/manifestdiff's tests run in a directory of their own inside it):
// the browser still starts, and leaves nothing behind in either place.
func TestBrowserStartsUnderADeepTMPDIR(t *testing.T) {
	for _, depth := range []int{1, 40} {
		deep := filepath.Join(t.TempDir(), strings.Repeat("d", depth))
		if err := os.Mkdir(deep, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", deep)
		b, err := Start(context.Background(), 800, 600)
		if err != nil {
			t.Fatalf("TMPDIR of %d bytes: %v", len(deep), err)
		}
		profile := b.profile
		b.Close()
		left, err := os.ReadDir(deep)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range left {
			t.Errorf("TMPDIR of %d bytes: %s left behind", len(deep), e.Name())
		}
		if _, err := os.Stat(profile); !os.IsNotExist(err) {
			t.Errorf("TMPDIR of %d bytes: %s not removed (%v)", len(deep), profile, err)
		}
	}
}
