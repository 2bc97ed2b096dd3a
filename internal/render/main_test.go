package render

import (
	"os"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/render/kustomizehelm"
)

// TestMain lets this test binary answer as the helm kustomize runs for
// helmCharts (kustomizehelm), as cmd/manifestdiff's main does.
func TestMain(m *testing.M) {
	if code, handled := kustomizehelm.Main(os.Args); handled {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
