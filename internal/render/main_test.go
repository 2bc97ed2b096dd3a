package render

import (
	"os"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/render/jsonnetproc"
	"github.com/gitops-promote/gitops-promote/internal/render/kustomizehelm"
)

// TestMain lets this test binary answer as the helm kustomize runs for
// helmCharts (kustomizehelm), as cmd/manifestdiff's main does.
func TestMain(m *testing.M) {
	if code, handled := kustomizehelm.Main(os.Args); handled {
		os.Exit(code)
	}
	// Started as the jsonnet evaluator of a run (see jsonnetproc).
	if code, handled := jsonnetproc.Main(os.Args); handled {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
