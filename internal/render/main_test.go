package render

import (
	"os"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/render/jsonnetproc"
	"github.com/gitops-promote/gitops-promote/internal/render/kustomizehelm"
	"github.com/gitops-promote/gitops-promote/internal/tempdir"
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
	// kustomize's Helm generator leaves an empty directory in TMPDIR when
	// a build fails after configuring it (the confinement tests do that on
	// purpose): the test binary, like manifestdiff's main, keeps its own.
	remove, err := tempdir.Private("render-test-")
	if err != nil {
		panic(err)
	}
	code := m.Run()
	remove()
	os.Exit(code)
}
