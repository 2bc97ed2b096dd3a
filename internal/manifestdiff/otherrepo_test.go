package manifestdiff

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/gitsource"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// sharedRepo is another team's repository: a chart at a path, plain
// manifests, a kustomization and values files, committed with the real
// git CLI into a bare repository served over file://.
func sharedRepo(t *testing.T) (url, main string) {
	t.Helper()
	dir := t.TempDir()
	work, bare := filepath.Join(dir, "work"), filepath.Join(dir, "shared.git")
	files := map[string]string{
		"charts/shared/Chart.yaml":       "apiVersion: v2\nname: shared\nversion: 0.3.0\n",
		"charts/shared/values.yaml":      "size: small\nregion: none\nrev: none\n",
		"charts/shared/values-prod.yaml": "size: large\n",
		"charts/shared/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Release.Name }}-shared}\n" +
			"data:\n  size: {{ .Values.size | quote }}\n  region: {{ .Values.region | quote }}\n  rev: {{ .Values.rev | quote }}\n",
		"charts/shared/.argocd-source-shared-prod.yaml": "helm:\n  parameters:\n  - {name: rev, value: $ARGOCD_APP_REVISION}\n",
		"envs/prod/region.yaml":                         "region: eu-west\n",
		"envs/prod/api.yaml":                            "api:\n  logLevel: debug\n",
		"manifests/ns.yaml":                             "apiVersion: v1\nkind: Namespace\nmetadata: {name: shared-tools}\n",
		"manifests/README.md":                           "not a manifest\n",
		"kust/kustomization.yaml":                       "resources: [cm.yaml]\nnamePrefix: k-\n",
		"kust/cm.yaml":                                  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-kustomize}\n",
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
	git := func(d string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = d
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(work, "init", "-q", "-b", "main")
	git(work, "add", "-A")
	git(work, "commit", "-qm", "shared")
	git(work, "tag", "v1.0.0")
	git(dir, "clone", "-q", "--bare", work, bare)
	return "file://" + bare, git(work, "rev-parse", "HEAD")
}

func otherRepoApps(url string) map[string]string {
	return map[string]string{
		"argocd/prod/app-shared.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shared-prod, namespace: argocd}
spec:
  project: ledger-prod
  source:
    repoURL: ` + url + `
    targetRevision: main
    path: charts/shared
    helm: {valueFiles: [values-prod.yaml, /envs/prod/region.yaml]}
  destination: {server: https://kubernetes.default.svc, namespace: shared}
`,
		"argocd/prod/app-tools.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: tools-prod, namespace: argocd}
spec:
  project: ledger-prod
  sources:
  - {repoURL: ` + url + `, targetRevision: v1.0.0, path: manifests}
  - {repoURL: ` + url + `, targetRevision: v1.0.0, path: kust}
  destination: {server: https://kubernetes.default.svc, namespace: tools}
`,
		"argocd/prod/app-audit.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: audit-prod, namespace: argocd}
spec:
  project: ledger-prod
  sources:
  - repoURL: http://127.0.0.1:8879
    chart: ledger-api
    targetRevision: 1.3.0
    helm:
      valueFiles: [$values/versions/prod.yaml, $ext/envs/prod/api.yaml]
  - {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, ref: values}
  - {repoURL: ` + url + `, targetRevision: main, ref: ext}
  destination: {server: https://kubernetes.default.svc, namespace: audit}
`,
	}
}

// TestSourcesOfAnotherRepository: a chart at a path of another
// repository (its value files, root-relative ones and parameter override
// files included), plain manifests and a kustomization there, and a
// `$ref` value file from it are fetched at their targetRevision and
// rendered, as Argo CD clones them; an unreachable repository fails only
// the apps that read it, naming it.
func TestSourcesOfAnotherRepository(t *testing.T) {
	url, commit := sharedRepo(t)
	base := exampleFleet(t)
	head := derive(t, base)
	for p, s := range otherRepoApps(url) {
		head.write(p, s)
	}
	head.write("argocd/prod/app-gone.yaml", strings.ReplaceAll(otherRepoApps("file:///nowhere/gone.git")["argocd/prod/app-tools.yaml"], "tools-prod", "gone-prod"))
	head.write("argocd/prod/app-notkust.yaml", strings.NewReplacer("tools-prod", "notkust-prod", "path: manifests}", "path: manifests, kustomize: {}}").
		Replace(otherRepoApps(url)["argocd/prod/app-tools.yaml"]))
	fetcher, err := gitsource.New(t.TempDir(), gitsource.Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	fetcher.LocalRepos = []string{"file:///"} // the test's bare repositories
	rep, err := runWithRepos(t, base, head.m, fetcher)
	if !errors.Is(err, ErrRender) {
		t.Fatalf("err = %v, want ErrRender for the unreachable repository only", err)
	}
	want := map[string]string{"prod/shared-prod": "added", "prod/tools-prod": "added", "prod/audit-prod": "added",
		"prod/gone-prod": "error", "prod/notkust-prod": "error", "prod/ledger-root-prod": "changed"}
	if diff := cmp.Diff(want, statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	cm := resource(t, findApp(t, rep, "prod", "shared-prod"), "ConfigMap")
	for _, s := range []string{"+  size: large\n", "+  region: eu-west\n", "+  rev: " + commit + "\n", "name: shared-prod-shared"} {
		if !strings.Contains(cm.Diff, s) {
			t.Errorf("shared-prod ConfigMap lacks %q:\n%s", s, cm.Diff)
		}
	}
	tools := findApp(t, rep, "prod", "tools-prod")
	var kinds []string
	for _, r := range tools.Resources {
		kinds = append(kinds, r.Kind+"/"+r.Name)
	}
	if diff := cmp.Diff([]string{"ConfigMap/k-from-kustomize", "Namespace/shared-tools"}, kinds); diff != "" {
		t.Errorf("tools-prod resources (-want +got):\n%s", diff)
	}
	if d := resource(t, findApp(t, rep, "prod", "audit-prod"), "Deployment").Diff; !strings.Contains(d, "value: debug") || !strings.Contains(d, "api:v3.1.0") {
		t.Errorf("audit-prod Deployment lacks the values of both refs:\n%s", d)
	}
	// a path of another repository is named by that repository and commit
	if e := findApp(t, rep, "prod", "notkust-prod").Error; !strings.Contains(e, url+"@"+commit[:12]+":manifests") || strings.Contains(e, gitsource.MountDir) {
		t.Errorf("notkust-prod error %q should name the repository and commit", e)
	}
	if e := findApp(t, rep, "prod", "gone-prod").Error; !strings.Contains(e, "repository file:///nowhere/gone.git") || !strings.Contains(e, "gone-prod") {
		t.Errorf("gone-prod error %q should name the app and the repository", e)
	}
}

func runWithRepos(t *testing.T, base, head fstest.MapFS, repos RepoFetcher) (report.Report, error) {
	t.Helper()
	cfg, err := config.Parse(head[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	d := &Diff{Config: cfg, Charts: newFetcher(), Repos: repos,
		Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: head}}
	return d.Run(context.Background())
}

// TestGitGeneratorOfAnotherRepository: an ApplicationSet's git generator
// over another repository lists that repository's directories at the
// generator's revision, and the apps it makes render from there.
func TestGitGeneratorOfAnotherRepository(t *testing.T) {
	url, _ := sharedRepo(t)
	base := exampleFleet(t)
	head := derive(t, base).write("argocd/prod/appset-shared.yaml", `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: shared-charts, namespace: argocd}
spec:
  goTemplate: true
  generators:
  - git:
      repoURL: `+url+`
      revision: v1.0.0
      directories: [{path: 'charts/*'}]
  template:
    metadata: {name: 'chart-{{.path.basename}}'}
    spec:
      project: ledger-prod
      source: {repoURL: `+url+`, targetRevision: v1.0.0, path: '{{.path.path}}'}
      destination: {server: https://kubernetes.default.svc, namespace: '{{.path.basename}}'}
`)
	fetcher, err := gitsource.New(t.TempDir(), gitsource.Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	fetcher.LocalRepos = []string{"file:///"} // the test's bare repositories
	rep, err := runWithRepos(t, base, head.m, fetcher)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"prod/chart-shared": "added", "prod/ledger-root-prod": "changed"}, statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	if cm := resource(t, findApp(t, rep, "prod", "chart-shared"), "ConfigMap"); !strings.Contains(cm.Diff, "+  size: small\n") {
		t.Errorf("ConfigMap:\n%s", cm.Diff)
	}
}
