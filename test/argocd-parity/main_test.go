package parity

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the suite a temporary directory of its own, removed when
// it ends: Argo CD's repo-server code leaves its argocd-helm-wrapper-* and
// argocd-git-wrapper-* directories in TMPDIR, one per render.
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "argocd-parity-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}
