package manifestdiff

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// TestAppPastItsTimeFailsAlone: a Helm template that loops does not watch
// the context, so an app whose renders outlast AppTimeout is left behind
// as that app's error; the run goes on, reports the others, and returns
// ErrRender, not an interruption.
func TestAppPastItsTimeFailsAlone(t *testing.T) {
	base := exampleFleet(t)
	loop := "{{- range until 10000 }}{{- range until 10000 }}{{- range until 10000 }}{{ end }}{{ end }}{{ end }}\n"
	head := derive(t, base).
		write("envs/qa/spin/Chart.yaml", "apiVersion: v2\nname: spin\nversion: 0.1.0\n").
		write("envs/qa/spin/templates/loop.yaml", loop).
		write("argocd/qa/app-spin.yaml", dirApp("spin-qa", "envs/qa/spin")).
		write("envs/qa/fine/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine}\n").
		write("argocd/qa/app-fine.yaml", dirApp("fine-qa", "envs/qa/fine"))
	cfg, err := config.Parse(head.m[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	d := &Diff{Config: cfg, Charts: newFetcher(), Parallel: 2, Envs: []string{"qa"}, AppTimeout: 2 * time.Second,
		Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: head.m}}
	start := time.Now()
	rep, err := d.Run(context.Background())
	if took := time.Since(start); took > time.Minute {
		t.Errorf("Run took %v with a 2 s bound per app", took)
	}
	if !errors.Is(err, ErrRender) || errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v; want ErrRender only", err)
	}
	spin := findApp(t, rep, "qa", "spin-qa")
	if spin.Status != report.StatusError || !strings.Contains(spin.Error, "env qa, app spin-qa: renders took too long: more than 2s") {
		t.Errorf("spin-qa: %+v", spin)
	}
	if a := findApp(t, rep, "qa", "fine-qa"); a.Status != report.StatusAdded {
		t.Errorf("fine-qa: %+v", a)
	}
}
