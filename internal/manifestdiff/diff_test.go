package manifestdiff

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// Only apps whose inputs differ are rendered; the fetch count per chart
// version shows which: base and head, and head again for a chart that may
// generate values (ledger-worker's randAlphaNum; ledger-api is proven
// deterministic and rendered once per revision).
func TestOnlyChangedInputsRender(t *testing.T) {
	base := exampleFleet(t)
	tests := []struct {
		name        string
		edit        func(*tree)
		wantFetches map[string]int
		wantChanged map[string]string // apps not unchanged
	}{
		{name: "same tree", edit: func(*tree) {}, wantFetches: map[string]int{}, wantChanged: map[string]string{}},
		{name: "file no app reads", edit: func(h *tree) { h.write("README.md", "# fleet\n") },
			wantFetches: map[string]int{}, wantChanged: map[string]string{}},
		{name: "comment in a value file", edit: func(h *tree) {
			// Inputs are bytes: a comment re-renders, but renders the same.
			h.edit("envs/qa/nodes/node-b/values-worker.yaml", "shard: b", "shard: b # the second")
		}, wantFetches: map[string]int{"ledger-worker@0.9.2": 3}, wantChanged: map[string]string{}},
		{name: "one node's values", edit: func(h *tree) {
			h.edit("envs/qa/nodes/node-b/values-worker.yaml", "shard: b", "shard: b2")
		}, wantFetches: map[string]int{"ledger-worker@0.9.2": 3}, wantChanged: map[string]string{"qa/ledger-node-b-worker-qa": "changed"}},
		{name: "env common values", edit: func(h *tree) {
			h.edit("envs/prod/common.yaml", "logLevel: info", "logLevel: warn")
		}, wantFetches: map[string]int{"ledger-api@1.3.0": 6, "ledger-worker@0.9.0": 9},
			wantChanged: map[string]string{"prod/ledger-node-a-api-prod": "changed", "prod/ledger-node-e-api-prod": "changed", "prod/ledger-node-f-api-prod": "changed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := derive(t, base)
			tt.edit(head)
			rep, f, err := run(t, base, head.m, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Apps) != 22 {
				t.Errorf("%d apps, want 22", len(rep.Apps))
			}
			if diff := cmp.Diff(tt.wantFetches, f.counts()); diff != "" {
				t.Errorf("fetches (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantChanged, statuses(rep, report.StatusUnchanged)); diff != "" {
				t.Errorf("apps not unchanged (-want +got):\n%s", diff)
			}
		})
	}
}

// A node directory present at one revision only is an added or removed
// app, rendered once, its resources in the app's destination namespace.
func TestAddedAndRemovedApps(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).
		write("envs/qa/nodes/node-x/values-api.yaml", "api: {nodeId: x}\n").
		write("envs/qa/nodes/node-x/values-worker.yaml", "worker: {shard: x}\n").
		remove("envs/qa/nodes/node-c")
	rep, f, err := run(t, base, head.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"qa/ledger-node-x-api-qa": "added", "qa/ledger-node-x-worker-qa": "added",
		"qa/ledger-node-c-api-qa": "removed", "qa/ledger-node-c-worker-qa": "removed",
	}
	if diff := cmp.Diff(want, statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"ledger-api@1.4.0": 2, "ledger-worker@0.9.2": 2}, f.counts()); diff != "" {
		t.Errorf("fetches (-want +got):\n%s", diff)
	}
	for name, st := range map[string]diff.Status{"ledger-node-x-api-qa": diff.Added, "ledger-node-c-worker-qa": diff.Removed} {
		a := findApp(t, rep, "qa", name)
		ns := "ledger-" + strings.Join(strings.Split(name, "-")[1:3], "-")
		var got []string
		for _, r := range a.Resources {
			if r.Status != st || r.Namespace != ns {
				t.Errorf("%s: %s %s is %s in %q, want %s in %q", name, r.Kind, r.Name, r.Status, r.Namespace, st, ns)
			}
			got = append(got, r.Kind)
		}
		if len(got) < 2 {
			t.Errorf("%s: resources %v", name, got)
		}
	}
}

// The worker chart's randAlphaNum token differs on every render; the
// second head render marks it generated, so it is not a change.
func TestGeneratedFieldsAreNotChanges(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).edit("versions/prod.yaml", "imageTag: v3.1.0", "imageTag: v3.1.1")
	rep, _, err := run(t, base, head.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := findApp(t, rep, "prod", "ledger-node-e-worker-prod")
	got := map[string]diff.ResourceDiff{}
	for _, r := range a.Resources {
		got[r.Kind] = r
	}
	tok := got["Secret"]
	if a.Status != report.StatusChanged || got["Deployment"].Status != diff.Changed || tok.Status != diff.Unchanged ||
		!cmp.Equal(tok.Generated, []string{"data.token"}) {
		t.Errorf("app %s; Deployment %s; token Secret %s generated %v: want changed, changed, unchanged [data.token]",
			a.Status, got["Deployment"].Status, tok.Status, tok.Generated)
	}
}

// Repeated parallel runs give the same report, and the same as a serial
// one: order comes from names, never from which render finished first.
func TestParallelRunsAreDeterministic(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).
		edit("versions/preprod.yaml", `chartVersion: "1.3.1"`, `chartVersion: "1.4.0"`).
		edit("argocd/preprod/appset-nodes.yaml", `targetRevision: "1.3.1"`, `targetRevision: "1.4.0"`).
		edit("envs/qa/common.yaml", "logLevel: debug", "logLevel: info").
		write("envs/prod/nodes/node-g/values-api.yaml", "api: {nodeId: g}\n").
		write("envs/prod/nodes/node-g/values-worker.yaml", "worker: {shard: g}\n").
		remove("envs/preprod/nodes/node-d")
	serial, _, err := run(t, base, head.m, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		got, _, err := run(t, base, head.m, 8)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(serial, got); diff != "" {
			t.Fatalf("parallel run %d differs from the serial one (-serial +parallel):\n%s", i, diff)
		}
	}
	if s := serial.Summary(); s.ByStatus.Changed < 5 || s.ByStatus.Added != 2 || s.ByStatus.Removed != 2 {
		t.Errorf("scenario too small to prove anything: %+v", s.ByStatus)
	}
}

// A chart version the repository lacks makes that app an error naming env,
// app, chart and version; the other apps are still diffed.
func TestFetchErrorIsReported(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).
		edit("argocd/prod/app-gateway.yaml", "targetRevision: '2.0.3'", "targetRevision: '2.0.9'").
		edit("envs/prod/nodes/node-a/values-api.yaml", "nodeId: a", "nodeId: a1")
	rep, _, err := run(t, base, head.m, 0)
	if !errors.Is(err, ErrRender) {
		t.Fatalf("Run error = %v, want ErrRender", err)
	}
	want := map[string]string{"prod/ledger-gateway-prod": "error", "prod/ledger-node-a-api-prod": "changed", "prod/ledger-root-prod": "changed"}
	if diff := cmp.Diff(want, statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	msg := findApp(t, rep, "prod", "ledger-gateway-prod").Error
	for _, s := range []string{"env prod", "app ledger-gateway-prod", "chart edge-gateway", "version 2.0.9"} {
		if !strings.Contains(msg, s) || strings.Contains(msg, "\n") {
			t.Errorf("error %q: want one line naming %q", msg, s)
		}
	}
}

// Ignore rules from the config drop fields before comparing: a chart bump
// that only moves the helm.sh/chart label and the versioned password is
// then no change at all.
func TestIgnoreRules(t *testing.T) {
	tests := []struct {
		ignore string
		want   map[string]string
	}{
		{"", map[string]string{"prod/ledger-node-a-api-prod": "changed", "prod/ledger-node-e-api-prod": "changed",
			"prod/ledger-node-f-api-prod": "changed", "prod/ledger-root-prod": "changed"}},
		{"ignore: [metadata.labels.helm.sh/chart, stringData.password]\n", map[string]string{"prod/ledger-root-prod": "changed"}},
	}
	for _, tt := range tests {
		t.Run(tt.ignore, func(t *testing.T) {
			base := derive(t, exampleFleet(t)).write(".promote.yaml", string(exampleFleet(t)[".promote.yaml"].Data)+tt.ignore)
			head := derive(t, base.m).edit("argocd/prod/appset-nodes.yaml", `targetRevision: "1.3.0"`, `targetRevision: "1.3.1"`)
			rep, f, err := run(t, base.m, head.m, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, statuses(rep, report.StatusUnchanged)); diff != "" {
				t.Errorf("apps (-want +got):\n%s", diff)
			}
			if n := f.counts()["ledger-api@1.3.1"]; n != 3 {
				t.Errorf("ledger-api 1.3.1 fetched %d times, want 3 (head once for each of 3 apps: the chart generates nothing)", n)
			}
		})
	}
}

// The render-once shortcut changes no report: the same scenarios diffed
// with head always rendered twice give the same report, generated values
// included (ledger-worker's token), and the shortcut did skip renders.
func TestRenderOnceChangesNoReport(t *testing.T) {
	base := exampleFleet(t)
	heads := map[string]*tree{
		"promotion and edits": derive(t, base).
			edit("versions/preprod.yaml", `chartVersion: "1.3.1"`, `chartVersion: "1.4.0"`).
			edit("argocd/preprod/appset-nodes.yaml", `targetRevision: "1.3.1"`, `targetRevision: "1.4.0"`).
			edit("envs/qa/common.yaml", "logLevel: debug", "logLevel: info").
			write("envs/prod/nodes/node-g/values-api.yaml", "api: {nodeId: g}\n").
			write("envs/prod/nodes/node-g/values-worker.yaml", "worker: {shard: g}\n").
			remove("envs/preprod/nodes/node-d"),
		"image tag": derive(t, base).edit("versions/prod.yaml", "imageTag: v3.1.0", "imageTag: v3.1.1"),
	}
	cfg, err := config.Parse(base[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	for name, head := range heads {
		t.Run(name, func(t *testing.T) {
			reps := map[bool]report.Report{}
			renders := map[bool]int{}
			for _, twice := range []bool{false, true} {
				f := newFetcher()
				d := &Diff{Config: cfg, Charts: f, RenderTwice: twice,
					Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: head.m}}
				rep, err := d.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				reps[twice] = rep
				for _, n := range f.counts() {
					renders[twice] += n
				}
			}
			if diff := cmp.Diff(reps[true], reps[false]); diff != "" {
				t.Errorf("report with the shortcut differs (-twice +once):\n%s", diff)
			}
			if renders[false] >= renders[true] {
				t.Errorf("%d renders with the shortcut, %d without: nothing skipped", renders[false], renders[true])
			}
		})
	}
}
