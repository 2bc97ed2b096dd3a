package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/testutil/chartsrv"
)

// ociCharts packages each name@version of the example charts for
// chartsrv.NewRegistry, which serves them at <host>/charts/<name>.
func ociCharts(t *testing.T, nameVersions ...string) map[string]map[string][]byte {
	t.Helper()
	out := map[string]map[string][]byte{}
	for _, nv := range nameVersions {
		name, version, _ := strings.Cut(nv, "@")
		if out[name] == nil {
			out[name] = map[string][]byte{}
		}
		out[name][version] = packageChart(t, name, version)
	}
	return out
}

// Apps whose charts live in an OCI registry, written both as Argo CD
// accepts them (oci://host/path and bare host/path), render and diff.
func TestOCIChart(t *testing.T) {
	reg := chartsrv.NewRegistry(t, ociCharts(t, "ledger-api@1.3.0", "ledger-api@1.3.1", "edge-gateway@2.1.0"), chartsrv.Options{})
	f := newFleet(t)
	f.edit(t, "argocd/prod/appset-nodes.yaml", "repoURL: "+f.Charts.URL+"\n        chart: ledger-api",
		"repoURL: oci://"+reg.Host+"/charts\n        chart: ledger-api")
	f.edit(t, "argocd/qa/app-gateway.yaml", "repoURL: "+f.Charts.URL, "repoURL: "+reg.Host+"/charts")
	base := f.commit(t, "charts from OCI")
	f.edit(t, "argocd/prod/appset-nodes.yaml", `targetRevision: "1.3.0"`, `targetRevision: "1.3.1"`)
	f.edit(t, "versions/prod.yaml", `chartVersion: "1.3.0"`, `chartVersion: "1.3.1"`)
	f.edit(t, "envs/qa/gateway/values.yaml", "replicas: 1", "replicas: 2")
	head := f.commit(t, "promote ledger-api 1.3.1 to prod; scale qa gateway")
	before, _ := reg.Seen()

	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
	}
	if n, _ := reg.Seen(); n == before {
		t.Error("nothing was fetched from the registry")
	}
	want := map[string]string{}
	for k := range scenarioStatuses {
		want[k] = "unchanged"
	}
	want["preprod/ledger-node-d-api-preprod"] = "unchanged"
	want["preprod/ledger-node-d-worker-preprod"] = "unchanged"
	delete(want, "prod/ledger-node-g-api-prod")
	delete(want, "prod/ledger-node-g-worker-prod")
	for _, k := range []string{"prod/ledger-node-a-api-prod", "prod/ledger-node-e-api-prod", "prod/ledger-node-f-api-prod",
		"prod/ledger-root-prod", "qa/ledger-gateway-qa"} {
		want[k] = "changed"
	}
	doc := parseJSON(t, r.out)
	if diff := cmp.Diff(want, doc.statuses()); diff != "" {
		t.Errorf("app statuses (-want +got):\n%s", diff)
	}
	// The head side really is the 1.3.1 chart from the registry.
	if !strings.Contains(r.out, `+    helm.sh/chart: ledger-api-1.3.1`) || !strings.Contains(r.out, "+  replicas: 2") {
		t.Errorf("report lacks the chart bump or the gateway scale-up:\n%s", r.out)
	}
}

// The same chart bump on every prod node is told once, not per app: one
// line of what moved, the Secret change the three apps share once, and
// the chart labels that only follow the bump folded, naming the apps.
func TestOCISameChangeGrouped(t *testing.T) {
	reg := chartsrv.NewRegistry(t, ociCharts(t, "ledger-api@1.3.0", "ledger-api@1.3.1"), chartsrv.Options{})
	f := newFleet(t)
	f.edit(t, "argocd/prod/appset-nodes.yaml", "repoURL: "+f.Charts.URL+"\n        chart: ledger-api",
		"repoURL: "+reg.Host+"/charts\n        chart: ledger-api")
	base := f.commit(t, "api chart from OCI, written without a scheme")
	f.edit(t, "argocd/prod/appset-nodes.yaml", `targetRevision: "1.3.0"`, `targetRevision: "1.3.1"`)
	head := f.commit(t, "bump")
	r := f.run(t, nil, "--base", base, "--head", head, "-o", "markdown", "--env", "prod")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
	}
	for _, want := range []string{
		"- **prod**: ledger-node.api chart 1.3.0 → 1.3.1 (3 apps)",
		"<details><summary>Secret <code>ledger-node-a-api-prod-db</code> changed — same change in 3 apps: ",
		"<details><summary>Changes that follow the version moves: ",
		"`ledger-node-a-api-prod`*, `ledger-node-e-api-prod`*, `ledger-node-f-api-prod`*",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, r.out)
		}
	}
	if n := strings.Count(r.out, "+    helm.sh/chart: ledger-api-1.3.1"); n > 1 {
		t.Errorf("the chart label bump is shown %d times, want at most once:\n%s", n, r.out)
	}
}
