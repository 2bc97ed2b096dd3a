package manifestdiff

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// attrRecorder keeps each record as "LEVEL env/app: msg".
type attrRecorder struct {
	mu    *sync.Mutex
	lines *[]string
	attrs []slog.Attr
}

func (r attrRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r attrRecorder) Handle(_ context.Context, rec slog.Record) error {
	where := map[string]string{}
	for _, a := range r.attrs {
		where[a.Key] = a.Value.String()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.lines = append(*r.lines, fmt.Sprintf("%s %s/%s: %s", rec.Level, where["env"], where["app"], rec.Message))
	return nil
}
func (r attrRecorder) WithAttrs(as []slog.Attr) slog.Handler {
	r.attrs = append(append([]slog.Attr{}, r.attrs...), as...)
	return r
}
func (r attrRecorder) WithGroup(string) slog.Handler { return r }

// TestNoticesOfHeadRendersNameTheApp: what the tools say while rendering
// reaches Diff.Log with env and app, from the head revision only (base's
// kustomization used patchesStrategicMerge, head's commonLabels).
func TestNoticesOfHeadRendersNameTheApp(t *testing.T) {
	app := strings.NewReplacer("ledger-missing-qa", "kust-qa", "envs/qa/nope", "envs/qa/kust").Replace(missingPathApp)
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {a: b}\n"
	base := derive(t, exampleFleet(t)).
		write("argocd/qa/app-kust.yaml", app).
		write("envs/qa/kust/kustomization.yaml", "resources: [cm.yaml]\npatchesStrategicMerge: [p.yaml]\n").
		write("envs/qa/kust/cm.yaml", cm).
		write("envs/qa/kust/p.yaml", cm)
	head := derive(t, base.m).
		write("envs/qa/kust/kustomization.yaml", "resources: [cm.yaml]\ncommonLabels: {team: a}\n")
	cfg, err := config.Parse(head.m[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	lines := &[]string{}
	d := &Diff{Config: cfg, Charts: newFetcher(), Log: slog.New(attrRecorder{mu: &sync.Mutex{}, lines: lines}),
		Base: Side{Name: "base", Rev: "b", FS: base.m}, Head: Side{Name: "head", Rev: "h", FS: head.m}}
	if _, err := d.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "WARN qa/kust-qa: kustomization envs/qa/kust/kustomization.yaml: 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically."
	for _, l := range *lines {
		if l != want {
			t.Errorf("notice %q, want only %q", l, want)
		}
	}
	if len(*lines) == 0 {
		t.Errorf("no notice; want %q", want)
	}
}
