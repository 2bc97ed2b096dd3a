package manifestdiff

import (
	"os"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/render/jsonnetproc"
)

// TestMain lets this test binary evaluate jsonnet in a child process of
// itself, as cmd/manifestdiff's main does.
func TestMain(m *testing.M) {
	if code, handled := jsonnetproc.Main(os.Args); handled {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
