package manifestdiff

import (
	"context"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// plannedPair is what planning decided for one pair, and which apps it
// keeps for the renders.
type plannedPair struct {
	Result     report.App
	Todo       []int
	Base, Head bool
	Panicked   string
}

func planned(es []entry) []plannedPair {
	out := make([]plannedPair, len(es))
	for i, e := range es {
		if p := e.p; p != nil {
			out[i] = plannedPair{p.result, p.todo, p.base != nil, p.head != nil, p.panicked}
			continue
		}
		out[i] = plannedPair{Result: e.done}
	}
	return out
}

// The join plans each env as its apps stream in; the whole-env path pairs
// every app first. Both must plan every pair alike, in the same order,
// whatever moved between the revisions; a failed document leaves the env
// to the whole-env path.
func TestJoinPlansAsWholeEnv(t *testing.T) {
	base := exampleFleet(t)
	moved := derive(t, base)
	moved.m["argocd/qa/gateway-moved.yaml"] = moved.m["argocd/qa/app-gateway.yaml"]
	delete(moved.m, "argocd/qa/app-gateway.yaml")
	cases := []struct {
		name   string
		head   fstest.MapFS
		shard  Shard
		stream bool // false: a document failed, the env is discovered whole
		want   map[string]int
	}{
		{"same", base, Shard{}, true, map[string]int{"unchanged": 8}},
		{"values changed", derive(t, base).edit("envs/qa/nodes/node-a/values-api.yaml", "nodeId: a", "nodeId: z").m, Shard{}, true,
			map[string]int{"unchanged": 7, "render": 1}},
		{"apps added and removed", derive(t, base).
			write("envs/qa/nodes/node-x/values-api.yaml", "api: {nodeId: x}\n").
			write("envs/qa/nodes/node-x/values-worker.yaml", "worker: {shard: x}\n").
			remove("envs/qa/nodes/node-c").m, Shard{}, true, map[string]int{"unchanged": 6, "added": 2, "removed": 2}},
		{"app moved to another file", moved.m, Shard{}, true, map[string]int{"unchanged": 7, "render": 1}},
		{"value file missing", derive(t, base).remove("envs/qa/common.yaml").m, Shard{}, true,
			map[string]int{"unchanged": 2, "render": 6}},
		{"shard 1 of 2", derive(t, base).edit("envs/qa/common.yaml", "logLevel: debug", "logLevel: info").m, Shard{Index: 1, Total: 2}, true,
			map[string]int{"unchanged": 2, "render": 2}},
		{"shard 2 of 2", derive(t, base).edit("envs/qa/common.yaml", "logLevel: debug", "logLevel: info").m, Shard{Index: 2, Total: 2}, true,
			map[string]int{"render": 4}},
		{"name generated twice", derive(t, base).write("argocd/qa/dup.yaml",
			"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: ledger-gateway-qa}\nspec:\n"+
				"  source: {repoURL: http://127.0.0.1:8879, chart: edge-gateway, targetRevision: 2.1.0}\n").m, Shard{}, false,
			map[string]int{"unchanged": 6, "error": 1, "render": 1}},
		{"file does not parse", derive(t, base).write("argocd/qa/app-gateway.yaml", "kind: [\n").m, Shard{}, false,
			map[string]int{"unchanged": 6, "error": 2, "render": 1}},
	}
	// Each case also runs with revisions that may not run ahead by more
	// than one app, so that they wait for each other all the time: the
	// plan is the same, and neither waits forever (apps added at one
	// revision only put both ahead).
	was := maxAhead
	t.Cleanup(func() { maxAhead = was })
	for _, tc := range cases {
		for _, ahead := range []int{was, 1} {
			maxAhead = ahead
			t.Run(fmt.Sprintf("%s, %d ahead", tc.name, ahead), func(t *testing.T) {
				cfg, err := config.Parse(tc.head[config.FileName].Data)
				if err != nil {
					t.Fatal(err)
				}
				d := &Diff{Config: cfg, Charts: newFetcher(), Shard: tc.shard, live: map[string]bool{},
					Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: tc.head}}
				ctx := context.Background()
				streamed, ok, err := d.streamEnv(ctx, "qa")
				if err != nil {
					t.Fatal(err)
				}
				if ok != tc.stream {
					t.Fatalf("streamed: %v, want %v", ok, tc.stream)
				}
				whole, err := d.discoverWhole(ctx, "qa")
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, kinds(whole)); diff != "" {
					t.Errorf("whole plan (-want +got):\n%s", diff)
				}
				if !ok {
					return
				}
				if diff := cmp.Diff(planned(whole), planned(streamed)); diff != "" {
					t.Errorf("streamed plan (-whole +streamed):\n%s", diff)
				}
			})
		}
	}
}

// kinds counts pairs by status, "render" for those whose status their
// renders decide.
func kinds(es []entry) map[string]int {
	m := map[string]int{}
	for _, e := range planned(es) {
		k := e.Result.Status
		if k == "" {
			k = "render"
		}
		m[k]++
	}
	return m
}
