package gates

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// The fixture: a GitOps repository pushed to a bare remote over file://
// and cloned again, as a CI job sees it, plus the GitLab double holding
// the statuses Argo CD Notifications would post.

const promoteYAML = `repoURL: https://gitlab.example.com/org/gitops.git
environments: [qa, preprod, prod]
versions: versions/{env}.yaml
manifests: ["argocd/{env}/*.yaml"]
appProjects: ["argocd/projects.yaml"]
components:
  dlt-node.backend: {chart: dlt-backend}
  dlt-node.vault: {chart: dlt-vault}
gates:
  prod: {sourceHealthy: true, minSoak: 2h, syncWindow: require}
`

func versionsYAML(backend, tag, vault string) string {
	return "dlt-node:\n  backend:\n    chartVersion: \"" + backend + "\"\n    imageTag: \"" + tag +
		"\"\n  vault:\n    chartVersion: \"" + vault + "\"\n"
}

func appsYAML(env, backend, vault, project string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: dlt-root-` + env + `
spec:
  project: ` + project + `
  source:
    repoURL: https://gitlab.example.com/org/gitops.git
    targetRevision: main
    path: argocd/` + env + `
  destination: {server: https://kubernetes.default.svc, namespace: argocd}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: backend-` + env + `
spec:
  project: ` + project + `
  sources:
  - repoURL: https://charts.example.com
    chart: dlt-backend
    targetRevision: "` + backend + `"
    helm: {valueFiles: [$values/versions/` + env + `.yaml]}
  - repoURL: https://gitlab.example.com/org/gitops.git
    targetRevision: main
    ref: values
  destination: {server: https://kubernetes.default.svc, namespace: dlt-backend}
---
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: vault-` + env + `
spec:
  generators:
  - list:
      elements: [{node: alpha}, {node: beta}]
  template:
    metadata:
      name: '{{node}}-vault-` + env + `'
    spec:
      project: ` + project + `
      source:
        repoURL: https://charts.example.com
        chart: dlt-vault
        targetRevision: "` + vault + `"
      destination: {server: https://kubernetes.default.svc, namespace: 'dlt-{{node}}'}
`
}

const projectsYAML = `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: dlt-prod
spec:
  syncWindows:
  - kind: allow
    schedule: "0 22 * * 3"
    duration: 4h
    timeZone: Europe/Berlin
    applications: ["*"]
---
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: dlt-preprod
spec: {}
`

type fixture struct {
	t       *testing.T
	dir     string // the clone
	remote  string
	repo    *git.Repo
	files   map[string]string
	commits []string // oldest first
	gl      *gitlabfake.Server
	now     time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{t: t, dir: filepath.Join(root, "work"), remote: filepath.Join(root, "remote.git"),
		now: time.Date(2025, 1, 8, 23, 0, 0, 0, time.UTC)}
	f.git(root, "init", "-q", "--bare", "-b", "main", f.remote)
	f.git(root, "init", "-q", "-b", "main", f.dir)
	f.git(f.dir, "remote", "add", "origin", "file://"+f.remote)
	f.files = map[string]string{
		".promote.yaml":            promoteYAML,
		"argocd/projects.yaml":     projectsYAML,
		"versions/qa.yaml":         versionsYAML("3.2.0", "v2.2.0", "1.3.0"),
		"versions/preprod.yaml":    versionsYAML("3.1.0", "v2.1.0", "1.2.0"),
		"versions/prod.yaml":       versionsYAML("3.0.0", "v2.0.0", "1.1.0"),
		"argocd/qa/apps.yaml":      appsYAML("qa", "3.2.0", "1.3.0", "dlt-qa"),
		"argocd/preprod/apps.yaml": appsYAML("preprod", "3.1.0", "1.2.0", "dlt-preprod"),
		"argocd/prod/apps.yaml":    appsYAML("prod", "3.0.0", "1.1.0", "dlt-prod"),
	}
	f.gl = gitlabfake.New(t, gitlabfake.Options{PerPage: 3}) // small pages: every listing pages
	f.gl.AddProject(42, "org/gitops")
	f.commit("initial layout")
	return f
}

func (f *fixture) git(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com",
		"GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes f.files, commits, pushes to the remote and tells GitLab
// about the commit, as a push does.
func (f *fixture) commit(msg string) string {
	f.t.Helper()
	for name, content := range f.files {
		p := filepath.Join(f.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	f.git(f.dir, "add", "-A")
	f.git(f.dir, "commit", "-q", "--allow-empty", "-m", msg)
	f.git(f.dir, "push", "-q", "origin", "main")
	sha := f.git(f.dir, "rev-parse", "HEAD")
	f.commits = append(f.commits, sha)
	if f.gl != nil {
		f.gl.AddCommit("42", sha)
	}
	return sha
}

// promotePreprod moves qa's values into preprod, as promote apply would.
func (f *fixture) promotePreprod() string {
	f.files["versions/preprod.yaml"] = f.files["versions/qa.yaml"]
	f.files["argocd/preprod/apps.yaml"] = appsYAML("preprod", "3.2.0", "1.3.0", "dlt-preprod")
	return f.commit("chore(preprod): promote versions from qa [skip ci]")
}

var preprodApps = []string{"alpha-vault-preprod", "backend-preprod", "beta-vault-preprod", "dlt-root-preprod"}

// report posts a status for every preprod app on sha, age before now.
func (f *fixture) report(sha, state string, age time.Duration, apps ...string) {
	f.gl.SetNow(f.now.Add(-age))
	if len(apps) == 0 {
		apps = preprodApps
	}
	for _, a := range apps {
		f.gl.AddStatus("42", sha, StatusPrefix+a, state, "Synced/Healthy", "https://argocd.example.com/applications/"+a)
	}
}

// checker opens a fresh clone of the remote (a CI job's checkout) and
// returns a checker on it.
func (f *fixture) checker(gl gitlab.StatusReader) (*Checker, plumbing.Hash) {
	f.t.Helper()
	clone := filepath.Join(f.t.TempDir(), "clone")
	f.git(filepath.Dir(clone), "clone", "-q", "file://"+f.remote, clone)
	repo, err := git.Open(clone)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { repo.Close() })
	cfg, err := config.Load(clone)
	if err != nil {
		f.t.Fatal(err)
	}
	head, _ := repo.Head()
	return &Checker{Cfg: cfg, Repo: repo, GitLab: gl, Project: "42", Now: func() time.Time { return f.now }}, head.Hash
}

func (f *fixture) client() *gitlab.Client {
	f.t.Helper()
	c, err := gitlab.New(gitlab.Options{BaseURL: f.gl.URL(), Token: f.gl.Token(), HTTP: f.gl.Client(),
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

func (f *fixture) check(overrides map[string]string) *Report {
	f.t.Helper()
	c, base := f.checker(f.client())
	rep, err := c.Check(context.Background(), Request{From: "preprod", To: "prod", Base: base,
		Overrides: maps.Clone(overrides), User: "alice"})
	if err != nil {
		f.t.Fatal(err)
	}
	return rep
}

func result(rep *Report, gate string) Result {
	for _, r := range rep.Results {
		if r.Gate == gate {
			return r
		}
	}
	return Result{}
}
