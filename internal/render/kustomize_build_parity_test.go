//go:build bundled

package render

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

// TestKustomizeBuildOptionsParity compares, per argocd-cm
// kustomize.buildOptions, our build with the real kustomize binary run as
// Argo CD runs it (`kustomize build <path> <options...>` in the
// repository root), output and errors alike.
func TestKustomizeBuildOptionsParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real kustomize binary")
	}
	bin := toolbin.Path(t, toolbin.Kustomize)
	tree := buildTree()
	for _, tc := range []struct {
		name, dir, options string
		wantErr            bool
	}{
		{"no options", "apps/base", "", false},
		{"outside the root refused by default", "apps/outside", "", true},
		{"load restrictor none", "apps/outside", "--load-restrictor LoadRestrictionsNone", false},
		{"load restrictor with =", "apps/outside", "--load-restrictor=LoadRestrictionsNone", false},
		{"load restrictor root only", "apps/outside", "--load-restrictor LoadRestrictionsRootOnly", true},
		{"bad load restrictor", "apps/base", "--load-restrictor Anything", true},
		{"reorder none", "apps/base", "--reorder none", false},
		{"reorder legacy", "apps/base", "--reorder=legacy", false},
		{"bad reorder", "apps/base", "--reorder sideways", true},
		{"managed-by label", "apps/base", "--enable-managedby-label", false},
		{"enable-helm without charts", "apps/outside", "--enable-helm --load-restrictor LoadRestrictionsNone", false},
		{"charts without enable-helm", "apps/helm", "", true},
		{"plugins without enable-alpha-plugins", "apps/fn", "", true},
		{"unknown flag", "apps/base", "--no-such-flag", true},
		{"a second path", "apps/base", "apps/outside", true},
		{"output to a file", "apps/base", "-o out.yaml", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := kustomizeBuildCLI(t, bin, tree, tc.dir, tc.options)
			got, gotErr := KustomizeBuild(t.Context(), tree, tc.dir, &argo.KustomizeOptions{}, tc.options, nil)
			if (wantErr != nil) != tc.wantErr || (gotErr != nil) != tc.wantErr {
				t.Fatalf("kustomize CLI error = %v\nours = %v\nwant an error: %v", wantErr, gotErr, tc.wantErr)
			}
			if tc.wantErr {
				t.Logf("CLI: %v\nours: %v", wantErr, gotErr)
				return
			}
			// the binary built here is v5.8.2; ours names Argo CD 3.6's
			want = bytes.ReplaceAll(want, []byte("kustomize-v5.8.2"), []byte("kustomize-"+BundledKustomize))
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("differs from kustomize build %s (-cli +ours):\n%s", tc.options, d)
			}
		})
	}
}

// kustomizeBuildCLI writes tree to disk and runs `kustomize build dir
// options...` in its root, as Argo CD's repo-server does.
func kustomizeBuildCLI(t *testing.T, bin string, tree fstest.MapFS, dir, options string) ([]byte, error) {
	t.Helper()
	root := t.TempDir()
	for name, f := range tree {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"build", filepath.Join(root, filepath.FromSlash(dir))}, strings.Fields(options)...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + root} // no helm, no function binary
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("kustomize %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}
