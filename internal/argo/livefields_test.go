package argo

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// The live diff reads what the render ignores: whether a sync prunes, and
// which differences the app ignores.
func TestPruneAndIgnoreDifferences(t *testing.T) {
	src := "  source: {repoURL: r, chart: c}\n"
	ignore := `  ignoreDifferences:
  - group: apps
    kind: Deployment
    jsonPointers: [/spec/replicas]
  - kind: ConfigMap
    name: cm
    namespace: ns
    jqPathExpressions: ['.data["x"]']
    managedFieldsManagers: [hpa]
`
	m := fstest.MapFS{
		"argocd/qa/a.yaml": {Data: []byte(app("prunes", src+"  syncPolicy: {automated: {prune: true}}\n"+ignore))},
		"argocd/qa/b.yaml": {Data: []byte(app("keeps", src+"  syncPolicy: {automated: {prune: false}}\n"))},
		"argocd/qa/c.yaml": {Data: []byte(app("manual", src+"  syncPolicy: {syncOptions: [CreateNamespace=true]}\n"))},
		"argocd/qa/d.yaml": {Data: []byte(app("disabled", src+"  syncPolicy: {automated: {enabled: false, prune: true}}\n"))},
	}
	apps, err := Discover(m, testConfig(t), "qa")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, a := range apps {
		got[a.Name] = a.Prune
		if a.Name == "prunes" {
			want := []IgnoreDifference{
				{Group: "apps", Kind: "Deployment", JSONPointers: []string{"/spec/replicas"}},
				{Kind: "ConfigMap", Name: "cm", Namespace: "ns", JQPathExpressions: []string{`.data["x"]`}, ManagedFieldsManagers: []string{"hpa"}},
			}
			if d := cmp.Diff(want, a.IgnoreDifferences); d != "" {
				t.Errorf("ignoreDifferences (-want +got):\n%s", d)
			}
		}
	}
	want := map[string]bool{"prunes": true, "keeps": false, "manual": false, "disabled": false}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("prune (-want +got):\n%s", d)
	}
}
