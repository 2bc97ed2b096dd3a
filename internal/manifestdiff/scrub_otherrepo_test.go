package manifestdiff

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/gitsource"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// secretsRepo is another repository holding a value file and a Secret
// manifest, committed with the real git CLI and served over file://.
func secretsRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	work, bare := filepath.Join(dir, "work"), filepath.Join(dir, "secrets.git")
	for p, s := range map[string]string{
		"envs/prod/secret.yaml": "password: PLANT-EXT-7\n",
		"manifests/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {pw: PLANT-EXT-8}\n",
	} {
		os.MkdirAll(filepath.Join(work, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(work, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "secrets"}, {"clone", "-q", "--bare", work, bare}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return "file://" + bare
}

// extEchoingFetcher fails the chart fetch with a message quoting the
// other repository's value and Secret, as a careless server might.
type extEchoingFetcher struct{ *fetcher }

func (e extEchoingFetcher) Fetch(ctx context.Context, repoURL, chart, version string) ([]byte, error) {
	if chart != "leaky" {
		return e.fetcher.Fetch(ctx, repoURL, chart, version)
	}
	return nil, fmt.Errorf("upstream said password=PLANT-EXT-7 pw=%s", base64.StdEncoding.EncodeToString([]byte("PLANT-EXT-8")))
}

// TestSafetyNetReadsOtherRepositories: the inputs an app takes from
// another repository (a $ref value file, the manifests of a directory
// source there) are masked in its error like those of this repository.
func TestSafetyNetReadsOtherRepositories(t *testing.T) {
	url := secretsRepo(t)
	base := exampleFleet(t)
	head := derive(t, base).write("argocd/prod/app-leaky.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: leaky-prod, namespace: argocd}
spec:
  project: ledger-prod
  sources:
  - repoURL: https://charts.example.com/stable
    chart: leaky
    targetRevision: 1.0.0
    helm: {valueFiles: [$ext/envs/prod/secret.yaml]}
  - {repoURL: `+url+`, targetRevision: main, ref: ext}
  - {repoURL: `+url+`, targetRevision: main, path: manifests}
  destination: {server: https://kubernetes.default.svc, namespace: leaky}
`)
	cfg, err := config.Parse(head.m[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	fetcher, err := gitsource.New(t.TempDir(), gitsource.Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	fetcher.LocalRepos = []string{"file:///"} // the test's bare repositories
	d := &Diff{Config: cfg, Charts: extEchoingFetcher{newFetcher()}, Repos: fetcher,
		Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: head.m}}
	rep, _ := d.Run(context.Background())
	app := findApp(t, rep, "prod", "leaky-prod")
	if app.Status != report.StatusError || !strings.Contains(app.Error, "upstream said") {
		t.Fatalf("status %s, error %q: want the fetch's error", app.Status, app.Error)
	}
	for _, v := range []string{"PLANT-EXT-7", "PLANT-EXT-8"} {
		for _, f := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
			if strings.Contains(app.Error, f) {
				t.Errorf("%q in %q", f, app.Error)
			}
		}
	}
}
