package promote

import (
	"bytes"
	"context"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/gates"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

var update = flag.Bool("update", false, "rewrite golden files")

// statusNow is Friday 2025-01-10 09:00 UTC: prod's change window
// (Wednesday 22:00 Berlin, 4h) is closed.
var statusNow = time.Date(2025, 1, 10, 9, 0, 0, 0, time.UTC)

const fleetProjects = `# The AppProjects of the fleet, with their sync windows.
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: ledger-prod
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
  name: ledger-preprod
spec:
  syncWindows:
  - kind: allow
    schedule: "0 8 * * 1-5"
    duration: 10h
    timeZone: Europe/Berlin
    applications: ["*"]
    manualSync: true
`

// statusRepo builds the example fleet as a git repository with a history
// made by promote itself: a qa -> preprod promotion, then a pin in qa,
// each at a fixed time, so commit hashes and the golden files are stable.
func statusRepo(t *testing.T) (*git.Repo, *config.Config, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fleet")
	if err := os.CopyFS(dir, os.DirFS("../../examples/fleet")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "argocd/projects.yaml"), []byte(fleetProjects), 0o644); err != nil {
		t.Fatal(err)
	}
	// a hand edit the versions file does not know about: drift
	gw := filepath.Join(dir, "argocd/prod/app-gateway.yaml")
	gwData, _ := os.ReadFile(gw)
	if err := os.WriteFile(gw, bytes.Replace(gwData, []byte("targetRevision: '2.0.3'"), []byte("targetRevision: '2.0.4'"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, config.FileName)
	data, _ := os.ReadFile(cfgPath)
	// the example reads its AppProjects from argocd/projects.yaml, replaced above
	if !bytes.Contains(data, []byte("appProjects: [argocd/projects.yaml]")) {
		t.Fatal("the example's .promote.yaml no longer reads argocd/projects.yaml")
	}
	data = append(data, []byte("gates:\n  prod: {sourceHealthy: true, minSoak: 2h, syncWindow: require}\n"+
		"  preprod: {sourceHealthy: true}\n")...)
	if err := os.WriteFile(cfgPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "Release Manager", "GIT_AUTHOR_EMAIL": "rm@example.com",
		"GIT_COMMITTER_NAME": "Release Manager", "GIT_COMMITTER_EMAIL": "rm@example.com",
		"GIT_AUTHOR_DATE": "2025-01-06T09:00:00Z", "GIT_COMMITTER_DATE": "2025-01-06T09:00:00Z"} {
		t.Setenv(k, v)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "initial layout"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo, err := git.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := repo.Head()
	shas := []string{head.Hash.String()}
	// preprod's gate cannot be evaluated here (no GitLab): the release
	// manager overrides it, and the commit records that.
	gate := GatesFor(&gates.Checker{Cfg: cfg, Repo: repo, NoGitLab: "CI_API_V4_URL not set"},
		map[string]string{config.GateSourceHealthy: "qa verified by hand | INC-4711"}, "alice")
	run := func(when time.Time, build BuildFunc) {
		t.Helper()
		a := &Apply{Repo: repo, Now: func() time.Time { return when }, Gate: gate}
		res, err := a.Run(context.Background(), build)
		if err != nil || res.Commit == "" {
			t.Fatalf("apply: %v %+v", err, res)
		}
		shas = append(shas, res.Commit)
	}
	run(time.Date(2025, 1, 7, 14, 0, 0, 0, time.UTC), func(fsys, _ fs.FS) (*Plan, error) {
		return BuildPromotion(fsys, cfg, PromoteRequest{From: "qa", To: "preprod"})
	})
	run(time.Date(2025, 1, 9, 16, 30, 0, 0, time.UTC), func(fsys, _ fs.FS) (*Plan, error) {
		return BuildPin(fsys, cfg, PinRequest{Env: "qa", Sets: []KeyValue{{Key: "ledger-node.api.imageTag", Value: "v3.3.0"}}})
	})
	// preprod's api goes back: the health gate preprod has does not
	// apply to a rollback, so nothing is overridden.
	rollbackHead, _ := repo.Head()
	rb, err := ResolveRollback(repo, cfg, rollbackHead.Hash, RollbackRequest{Env: "preprod", Only: []string{"ledger-node.api"},
		Reason: "LEDGER-901: 5xx after 1.4.0"})
	if err != nil {
		t.Fatal(err)
	}
	run(time.Date(2025, 1, 10, 8, 15, 0, 0, time.UTC), func(fsys, _ fs.FS) (*Plan, error) { return rb.Build(fsys, cfg) })
	// the worker chart that qa and preprod run is rejected: status marks it
	run(time.Date(2025, 1, 10, 8, 30, 0, 0, time.UTC), func(fsys, _ fs.FS) (*Plan, error) {
		return BuildReject(fsys, cfg, RejectRequest{Spec: "ledger-node.worker@0.9.2", Reason: "LEDGER-902: leaks memory"})
	})
	return repo, cfg, shas
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (run with -update to accept):\n%s", name, got)
	}
}

func TestStatusGolden(t *testing.T) {
	repo, cfg, shas := statusRepo(t)
	// Argo CD of preprod reported on the promotion commit: every app
	// healthy but one worker degraded; the gateway never reported.
	gl := gitlabfake.New(t, gitlabfake.Options{})
	gl.AddProject(42, "platform/ledger-fleet")
	gl.AddCommit("42", shas...)
	gl.SetNow(time.Date(2025, 1, 7, 15, 0, 0, 0, time.UTC))
	for _, app := range []string{"ledger-root-preprod", "ledger-node-a-api-preprod", "ledger-node-d-api-preprod", "ledger-node-a-worker-preprod"} {
		gl.AddStatus("42", shas[1], "argocd/"+app, "success", "Synced/Healthy", "")
	}
	gl.AddStatus("42", shas[1], "argocd/ledger-node-d-worker-preprod", "failed", "Synced/Degraded", "")
	client, err := gitlab.New(gitlab.Options{BaseURL: gl.URL(), Token: gl.Token(), HTTP: gl.Client()})
	if err != nil {
		t.Fatal(err)
	}
	head := plumbing.NewHash(shas[len(shas)-1])
	v, err := BuildStatus(context.Background(), repo, cfg, StatusOptions{Head: head, Now: statusNow, GitLab: client, Project: "42"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer, *StatusView) error
	}{
		{"status.txt", func(b *bytes.Buffer, v *StatusView) error { return WriteStatusTable(b, v) }},
		{"status.md", func(b *bytes.Buffer, v *StatusView) error { return WriteStatusMarkdown(b, v) }},
		{"status.json", func(b *bytes.Buffer, v *StatusView) error { return WriteStatusJSON(b, v) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b, v); err != nil {
			t.Fatal(err)
		}
		golden(t, f.name, b.Bytes())
	}
	// One listing per commit at most, however many envs read it.
	if n := gl.Calls("GET statuses"); n > len(shas) {
		t.Errorf("%d status listings for %d commits", n, len(shas))
	}
}

// Without GitLab the view reads git objects only, and says nothing about
// health rather than guessing.
func TestStatusWithoutGitLab(t *testing.T) {
	repo, cfg, shas := statusRepo(t)
	v, err := BuildStatus(context.Background(), repo, cfg, StatusOptions{Head: plumbing.NewHash(shas[2]), Now: statusNow})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteStatusTable(&b, v); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "health:") {
		t.Errorf("health shown without GitLab:\n%s", out)
	}
	for _, want := range []string{"pin@" + shas[1][:8], "from qa@" + shas[0][:8], "qa -> preprod: ledger-node.api.imageTag v3.2.0 -> v3.3.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
}
