package manifestdiff

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/testutil/gencharts"
)

// TestRenderOnceNeverHidesAGeneratedValue: an app whose chart generates a
// value (any generating function, in any place a template can sit) and
// whose inputs changed is rendered three times, head twice, with either
// Helm major; the generated value is labelled generated, never reported
// as a change, and the report is the one a run without the shortcut
// gives. A chart of pure templates is rendered once per revision, which
// shows the shortcut is on in this very run.
func TestRenderOnceNeverHidesAGeneratedValue(t *testing.T) {
	base, head := derive(t, exampleFleet(t)), derive(t, exampleFleet(t))
	f := newFetcher()
	type app struct {
		name, chart string
		p           gencharts.Placement
		g           gencharts.Generator
	}
	var apps []app
	for _, p := range gencharts.Placements {
		for _, g := range append(gencharts.Generators(), gencharts.Pure) {
			if p.Name != "template" && !slices.Contains([]string{"randAlphaNum", "now", "lookup", ""}, g.Func) {
				continue // every generator in one placement, a few in every placement
			}
			slug := gencharts.Slug(p, g)
			tgz, values, err := gencharts.Chart(slug, p, g)
			if err != nil {
				t.Fatal(err)
			}
			f.archive[slug+"@0.1.0"] = tgz
			a := app{name: "gen-" + slug + "-qa", chart: slug, p: p, g: g}
			apps = append(apps, a)
			base.write("argocd/qa/"+a.name+".yaml", genApp(a.name, slug, "level: a\n"+values))
			head.write("argocd/qa/"+a.name+".yaml", genApp(a.name, slug, "level: b\n"+values))
		}
	}
	cfg, err := config.Parse(base.m[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	for _, argocd := range []string{"3.4", "3.6"} { // Helm 3, Helm 4
		t.Run("argocd "+argocd, func(t *testing.T) {
			cfg := *cfg
			cfg.Argo.Version = argocd
			reps := map[bool]report.Report{}
			for _, twice := range []bool{false, true} {
				f.calls = map[string]int{}
				d := &Diff{Config: &cfg, Charts: f, RenderTwice: twice, Envs: []string{"qa"},
					Base: Side{Name: "base", Rev: "b", FS: base.m}, Head: Side{Name: "head", Rev: "h", FS: head.m}}
				rep, err := d.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				reps[twice] = rep
				if twice {
					continue
				}
				counts := f.counts()
				for _, a := range apps {
					want := 3
					if a.g.Func == "" && !a.p.Tpl {
						want = 2
					}
					if n := counts[a.chart+"@0.1.0"]; n != want {
						t.Errorf("%s (%s, %s): rendered %d times, want %d", a.name, a.p.Name, a.g.Expr, n, want)
					}
					checkGenerated(t, findApp(t, rep, "qa", a.name), a.g.Varies)
				}
			}
			for _, a := range apps {
				if a.g.Maybe { // two renders differ now and then: so may the two runs
					maskGenerated(reps[true], a.name)
					maskGenerated(reps[false], a.name)
				}
			}
			if diff := cmp.Diff(reps[true], reps[false]); diff != "" {
				t.Errorf("report with the shortcut differs (-twice +once):\n%s", diff)
			}
		})
	}
}

// checkGenerated: the app changed in its level only, and its token is
// labelled generated where the generator does differ per render.
func checkGenerated(t *testing.T, a report.App, varies bool) {
	t.Helper()
	if a.Status != report.StatusChanged {
		t.Errorf("%s: status %s (%s), want changed", a.Name, a.Status, a.Error)
		return
	}
	var token *diff.ResourceDiff
	for i, r := range a.Resources {
		switch {
		case strings.HasSuffix(r.Name, "-cfg"):
			if r.Status != diff.Changed {
				t.Errorf("%s: %s is %s, want changed", a.Name, r.Name, r.Status)
			}
		case strings.HasSuffix(r.Name, "-gen") || strings.HasSuffix(r.Name, "-sub"):
			token = &a.Resources[i]
			if r.Status != diff.Unchanged {
				t.Errorf("%s: the generated value is reported as a change:\n%s", a.Name, r.Diff)
			}
		}
	}
	switch {
	case token == nil:
		t.Errorf("%s: no token ConfigMap rendered", a.Name)
	case varies && !slices.Equal(token.Generated, []string{"data.token"}):
		t.Errorf("%s: generated fields %v, want [data.token]", a.Name, token.Generated)
	}
}

func genApp(name, chart, values string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %s, namespace: argocd}
spec:
  project: ledger-qa
  source:
    repoURL: https://charts.example.com
    chart: %s
    targetRevision: 0.1.0
    helm:
      values: |
%s
  destination: {server: https://kubernetes.default.svc, namespace: gen}
`, name, chart, indent(values, "        "))
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n")
}

// maskGenerated clears the generated fields listed for app name.
func maskGenerated(rep report.Report, name string) {
	for _, a := range rep.Apps {
		if a.Name == name {
			for i := range a.Resources {
				a.Resources[i].Generated = nil
			}
		}
	}
}
