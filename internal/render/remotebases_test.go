//go:build bundled

package render

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/gitsource"
	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

// remoteBaseRepo commits a base (which itself uses a sibling base of the
// same repository) and tags it, in a bare repository kustomize can clone
// over file://.
func remoteBaseRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	files := map[string]string{
		"deploy/base/kustomization.yaml":   "resources: [cm.yaml, ../common]\nnamePrefix: base-\ncommonLabels: {tier: base}\n",
		"deploy/base/cm.yaml":              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {from: remote}\n",
		"deploy/common/kustomization.yaml": "resources: [sa.yaml]\n",
		"deploy/common/sa.yaml":            "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: runner}\n",
	}
	for p, s := range files {
		full := filepath.Join(work, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base"},
		{"tag", "v1.0.0"}, {"clone", "-q", "--bare", ".", filepath.Join(dir, "bases.git")}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return filepath.Join(dir, "bases.git")
}

// TestKustomizeRemoteBasesParity: an overlay whose resources are remote
// bases (file:// here, the same forms as https://host/repo.git//path
// and github.com/org/repo/path) builds in process, the repository fetched
// with go-git, exactly as the real kustomize binary builds it by cloning
// with git.
func TestKustomizeRemoteBasesParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real kustomize binary")
	}
	bin := toolbin.Path(t, toolbin.Kustomize)
	bare := remoteBaseRepo(t)
	remote := "file://" + bare + "//deploy/base?ref=v1.0.0"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("apiVersion: v1\nkind: Secret\nmetadata: {name: over-http}\n"))
	}))
	defer srv.Close()
	tree := fstest.MapFS{
		"apps/prod/kustomization.yaml": {Data: []byte("# remote base\nresources:\n- " + remote + "\n- local.yaml\n- " + srv.URL + "/secret.yaml\nnameSuffix: -prod\n")},
		"apps/prod/local.yaml":         {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: local}\n")},
	}
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
	cmd := exec.Command(bin, "build", filepath.Join(root, "apps/prod"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kustomize build: %v: %s", err, stderr.String())
	}

	fetcher, err := gitsource.New(t.TempDir(), gitsource.Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	fetcher.LocalRepos = []string{"file:///"} // the test's bare repositories
	req := &argo.Request{Env: "prod", App: "a", Kind: argo.KindKustomize, Path: "apps/prod", Source: argo.Source{Path: "apps/prod"}}
	got, err := KustomizeSource{}.Render(context.Background(), Input{FS: tree, Repos: fetcher}, req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "base-app-prod") || !strings.Contains(stdout.String(), "over-http-prod") {
		t.Fatalf("the binary did not use the remote base:\n%s", stdout.String())
	}
	if d := cmp.Diff(stdout.String(), string(got)); d != "" {
		t.Errorf("differs from kustomize build (-cli +ours):\n%s", d)
	}
	// Without a fetcher it stays "not rendered", naming the base.
	_, err = KustomizeSource{}.Render(context.Background(), Input{FS: tree}, req)
	if !strings.Contains(err.Error(), "remote base "+remote) {
		t.Errorf("no fetcher: %v", err)
	}
}
