package manifestdiff

import (
	"slices"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/kube"
)

// TestLiveGeneratedFields is the live side of the offline diff's rule: a
// field that differs between two head renders (randAlphaNum, a checksum
// of one) differs from the cluster on every run, so the live section
// labels it generated instead of showing it as a change or a drift. A
// pair whose only difference is generated is no change at all; a Secret's
// generated stringData key is matched as data.<key>, where the API server
// keeps it.
func TestLiveGeneratedFields(t *testing.T) {
	cm := func(token, mode string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "app", "namespace": "ns"},
			"data": map[string]any{"token": token, "mode": mode}}
	}
	dep := func(sum string, replicas int) map[string]any {
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "app", "namespace": "ns"},
			"spec": map[string]any{"replicas": replicas, "template": map[string]any{"metadata": map[string]any{
				"annotations": map[string]any{"checksum/config": sum}}}}}
	}
	secretRender := func(pw string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "pw", "namespace": "ns"},
			"stringData": map[string]any{"password": pw}}
	}
	secretLive := func(pw64 string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "pw", "namespace": "ns"},
			"data": map[string]any{"password": pw64}, "type": "Opaque"}
	}
	res := func(objs ...map[string]any) []diff.Resource {
		var out []diff.Resource
		for _, o := range objs {
			m := o["metadata"].(map[string]any)
			out = append(out, diff.Resource{APIVersion: o["apiVersion"].(string), Kind: o["kind"].(string),
				Namespace: m["namespace"].(string), Name: m["name"].(string), Object: o})
		}
		return out
	}
	gen := generatedFields(res(cm("r1", "a"), dep("s1", 2), secretRender("p1")), res(cm("r2", "a"), dep("s2", 2), secretRender("p2")))
	pair := func(action string, live, want map[string]any) kube.Pair {
		m := want["metadata"].(map[string]any)
		return kube.Pair{Ref: kube.Ref{APIVersion: want["apiVersion"].(string), Kind: want["kind"].(string), Namespace: m["namespace"].(string), Name: m["name"].(string)},
			Action: action, Live: live, Want: want}
	}
	d := &Diff{Config: &config.Config{}}
	l := d.liveReport(kube.Result{
		Changes: []kube.Pair{
			pair(kube.ActionUpdate, cm("live-token", "a"), cm("r1", "b")),       // a real change beside a generated one
			pair(kube.ActionUpdate, dep("live-sum", 2), dep("s1", 2)),           // only generated: no change
			pair(kube.ActionUpdate, secretLive("bGl2ZQ=="), secretLive("cDE=")), // the dry run's data.password
		},
		Drift: []kube.Pair{pair(kube.ActionUpdate, dep("live-sum", 3), dep("s1", 2))}, // drift in replicas only
	}, gen)

	if len(l.Changes) != 1 {
		t.Fatalf("changes %+v, want the ConfigMap only", l.Changes)
	}
	c := l.Changes[0]
	if c.Kind != "ConfigMap" || !slices.Equal(c.Generated, []string{"data.token"}) {
		t.Errorf("ConfigMap: generated %v, want [data.token]", c.Generated)
	}
	if strings.Contains(c.Diff, "live-token") || strings.Contains(c.Diff, "r1") || !strings.Contains(c.Diff, "+  mode: b") {
		t.Errorf("ConfigMap diff shows a generated value or lacks the change:\n%s", c.Diff)
	}
	if len(l.Drift) != 1 || !slices.Equal(l.Drift[0].Generated, []string{"spec.template.metadata.annotations.checksum/config"}) ||
		strings.Contains(l.Drift[0].Diff, "live-sum") || !strings.Contains(l.Drift[0].Diff, "replicas: 3") {
		t.Errorf("drift %+v, want replicas only, the checksum generated", l.Drift)
	}

	// Without the second render, the same pairs are all changes (today's main).
	plain := d.liveReport(kube.Result{Changes: []kube.Pair{pair(kube.ActionUpdate, dep("live-sum", 2), dep("s1", 2))}}, nil)
	if len(plain.Changes) != 1 || len(plain.Changes[0].Generated) != 0 {
		t.Errorf("without generated fields: %+v", plain.Changes)
	}
}
