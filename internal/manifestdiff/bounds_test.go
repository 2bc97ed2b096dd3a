package manifestdiff

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/render"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/testutil/endless"
)

func dirApp(name, path string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ` + name + `, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: ` + path + `}
  destination: {server: https://kubernetes.default.svc, namespace: k}
`
}

// TestInterruptedRunReportsWhatFinished: a context cancelled while an app
// is stuck in an engine that cannot be stopped (a jsonnet loop is killed,
// but the run does not wait for any engine) ends the run within seconds:
// the apps that finished are in the report as they are, the stuck one is
// an error, not rendered, "interrupted", and Run says ErrInterrupted.
func TestInterruptedRunReportsWhatFinished(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).
		write("envs/qa/fine/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine}\n").
		write("argocd/qa/app-fine.yaml", dirApp("fine-qa", "envs/qa/fine")).
		write("envs/qa/spin/main.jsonnet", endless.JsonnetLoop).
		write("argocd/qa/app-spin.yaml", dirApp("spin-qa", "envs/qa/spin"))
	cfg, err := config.Parse(head.m[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	cause := errors.New("interrupted by SIGTERM")
	ctx, cancel := context.WithCancelCause(context.Background())
	fine := make(chan struct{})
	at := make(chan time.Time, 1)
	d := &Diff{Config: cfg, Charts: newFetcher(), Parallel: 2, Envs: []string{"qa"},
		Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: head.m},
		Progress: func(done, total int) {
			if done == total-1 {
				close(fine) // every app but the stuck one
			}
		}}
	go func() {
		select {
		case <-fine:
		case <-time.After(2 * time.Minute):
		}
		time.Sleep(200 * time.Millisecond)
		at <- time.Now()
		cancel(cause)
	}()
	rep, err := d.Run(ctx)
	if took := time.Since(<-at); took > 2*time.Second {
		t.Errorf("Run returned %v after the cancel; want within settleGrace", took)
	}
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, cause) || !strings.Contains(err.Error(), "interrupted by SIGTERM: 1 app not rendered") {
		t.Fatalf("err %v; want ErrInterrupted, the cause, one app", err)
	}
	spin := findApp(t, rep, "qa", "spin-qa")
	if spin.Status != report.StatusError || spin.NotRendered != "interrupted" ||
		spin.Error != "env qa, app spin-qa: not rendered: interrupted by SIGTERM" {
		t.Errorf("spin-qa: %+v", spin)
	}
	if a := findApp(t, rep, "qa", "fine-qa"); a.Status != report.StatusAdded || len(a.Resources) != 1 {
		t.Errorf("fine-qa, finished before the signal: %+v", a)
	}
}

// TestAppPastItsBoundFailsAlone: an app whose sources together render
// more than render.MaxAppBytes fails with render.ErrTooLarge; the others
// render.
func TestAppPastItsBoundFailsAlone(t *testing.T) {
	line := "    a line of a ConfigMap's file, again and again\n"
	half := strings.Repeat(line, render.MaxAppBytes/2/len(line)+1000)
	cm := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\ndata:\n  file: |\n" + half
	}
	base := exampleFleet(t)
	head := derive(t, base).
		write("envs/qa/a/cm.yaml", cm("a")).
		write("envs/qa/b/cm.yaml", cm("b")).
		write("envs/qa/fine/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine}\n").
		write("argocd/qa/app-fine.yaml", dirApp("fine-qa", "envs/qa/fine")).
		write("argocd/qa/app-big.yaml", strings.Replace(dirApp("big-qa", "envs/qa/a"),
			"  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/a}\n",
			"  sources:\n  - {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/a}\n"+
				"  - {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/b}\n", 1))
	rep, _, err := run(t, base, head.m, 0)
	if !errors.Is(err, ErrRender) {
		t.Fatalf("err %v; want ErrRender", err)
	}
	big := findApp(t, rep, "qa", "big-qa")
	if big.Status != report.StatusError || !strings.Contains(big.Error, "env qa, app big-qa: rendered more than 64 MiB") {
		t.Errorf("big-qa: %s %q", big.Status, big.Error)
	}
	if a := findApp(t, rep, "qa", "fine-qa"); a.Status != report.StatusAdded {
		t.Errorf("fine-qa: %+v", a)
	}
}
