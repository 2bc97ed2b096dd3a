package manifestdiff

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// rangeFetcher is the example fetcher that also resolves version ranges
// from the example charts' published versions, as charts.Client does
// from a repository's index.
type rangeFetcher struct{ *fetcher }

func (r rangeFetcher) ResolveVersion(_ context.Context, _, chart, constraint string) (string, error) {
	vs, err := os.ReadFile(filepath.Join("..", "..", "examples", "charts", chart, "versions"))
	if err != nil {
		return "", err
	}
	return charts.MaxVersion(constraint, strings.Fields(string(vs)))
}

const rangeApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ledger-range-qa, namespace: argocd}
spec:
  project: ledger-qa
  sources:
  - repoURL: http://127.0.0.1:8879
    chart: ledger-api
    targetRevision: "1.*"
    helm:
      valueFiles: [$values/versions/qa.yaml, $values/envs/qa/common.yaml]
      parameters: [{name: api.nodeId, value: "$ARGOCD_APP_NAME-$ARGOCD_APP_REVISION", forceString: true}]
  - {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, ref: values}
  destination: {server: https://kubernetes.default.svc, namespace: ledger-range}
`

// TestArgoResolutionInManifestdiff: a chart targetRevision range renders
// the highest published match, the build environment (its revision being
// that version) reaches parameters, and the objects carry the tracking
// annotation.
func TestArgoResolutionInManifestdiff(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).write("argocd/qa/app-range.yaml", rangeApp)
	cfg := loadConfig(t, head.m)
	f := rangeFetcher{newFetcher()}
	d := &Diff{Config: cfg, Charts: f, Envs: []string{"qa"},
		Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: head.m}}
	rep, err := d.Run(context.Background())
	if err != nil {
		for _, a := range rep.Apps {
			if a.Error != "" {
				t.Log(a.Error)
			}
		}
		t.Fatal(err)
	}
	a := findApp(t, rep, "qa", "ledger-range-qa")
	if a.Status != report.StatusAdded {
		t.Fatalf("status %s: %s", a.Status, a.Error)
	}
	if n := f.counts()["ledger-api@1.4.0"]; n == 0 {
		t.Errorf("1.* did not fetch ledger-api 1.4.0: %v", f.counts())
	}
	var all string
	for _, r := range a.Resources {
		all += r.Diff
	}
	for _, want := range []string{"ledger-range-qa-1.4.0", "argocd.argoproj.io/tracking-id: ledger-range-qa:apps/Deployment:ledger-range/"} {
		if !strings.Contains(all, want) {
			t.Errorf("rendered app lacks %q:\n%s", want, all)
		}
	}

	// tracking: none leaves the manifests as the tools print them.
	d.Config.Argo.Tracking = "none"
	if rep, err = d.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, r := range findApp(t, rep, "qa", "ledger-range-qa").Resources {
		if strings.Contains(r.Diff, "tracking-id") {
			t.Errorf("tracking: none still marks %s/%s", r.Kind, r.Name)
		}
	}
}

func loadConfig(t *testing.T, m fstest.MapFS) *config.Config {
	t.Helper()
	cfg, err := config.Parse(m[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
