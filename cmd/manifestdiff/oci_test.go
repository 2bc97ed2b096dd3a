package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/registry"
)

// ociRegistry is go-containerregistry's in-memory registry on loopback,
// counting the requests that reach it.
type ociRegistry struct {
	*httptest.Server
	hits atomic.Int64
}

func newOCIRegistry(t *testing.T) *ociRegistry {
	t.Helper()
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	r := &ociRegistry{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.hits.Add(1)
		reg.ServeHTTP(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *ociRegistry) host() string { return strings.TrimPrefix(r.URL, "http://") }

// push stores a chart the way `helm push` does: config blob, chart layer
// and an OCI manifest tagged with the version.
func (r *ociRegistry) push(t *testing.T, repo, version string, tgz []byte) {
	t.Helper()
	config := fmt.Appendf(nil, `{"apiVersion":"v2","name":%q,"version":%q}`, repo, version)
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        map[string]any{"mediaType": "application/vnd.cncf.helm.config.v1+json", "digest": r.blob(t, repo, config), "size": len(config)},
		"layers": []any{map[string]any{"mediaType": "application/vnd.cncf.helm.chart.content.v1.tar+gzip",
			"digest": r.blob(t, repo, tgz), "size": len(tgz)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/v2/%s/manifests/%s", r.URL, repo, version), bytes.NewReader(manifest))
	req.Header.Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("put manifest %s:%s: %s", repo, version, resp.Status)
	}
}

func (r *ociRegistry) blob(t *testing.T, repo string, body []byte) string {
	t.Helper()
	sum := sha256.Sum256(body)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	resp, err := http.Post(fmt.Sprintf("%s/v2/%s/blobs/uploads/?digest=%s", r.URL, repo, digest), "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload blob to %s: %s", repo, resp.Status)
	}
	return digest
}

// Apps whose charts live in an OCI registry, written both as Argo CD
// accepts them (oci://host/path and bare host/path), render and diff.
func TestOCIChart(t *testing.T) {
	reg := newOCIRegistry(t)
	for _, c := range []struct{ name, version string }{{"ledger-api", "1.3.0"}, {"ledger-api", "1.3.1"}, {"edge-gateway", "2.1.0"}} {
		reg.push(t, "charts/"+c.name, c.version, packageChart(t, c.name, c.version))
	}
	f := newFleet(t)
	f.edit(t, "argocd/prod/appset-nodes.yaml", "repoURL: "+f.Charts.URL+"\n        chart: ledger-api",
		"repoURL: oci://"+reg.host()+"/charts\n        chart: ledger-api")
	f.edit(t, "argocd/qa/app-gateway.yaml", "repoURL: "+f.Charts.URL, "repoURL: "+reg.host()+"/charts")
	base := f.commit(t, "charts from OCI")
	f.edit(t, "argocd/prod/appset-nodes.yaml", `targetRevision: "1.3.0"`, `targetRevision: "1.3.1"`)
	f.edit(t, "versions/prod.yaml", `chartVersion: "1.3.0"`, `chartVersion: "1.3.1"`)
	f.edit(t, "envs/qa/gateway/values.yaml", "replicas: 1", "replicas: 2")
	head := f.commit(t, "promote ledger-api 1.3.1 to prod; scale qa gateway")
	before := reg.hits.Load()

	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
	}
	if reg.hits.Load() == before {
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

// The same chart bump on every prod node is shown once, not per app.
func TestOCISameChangeGrouped(t *testing.T) {
	reg := newOCIRegistry(t)
	for _, v := range []string{"1.3.0", "1.3.1"} {
		reg.push(t, "charts/ledger-api", v, packageChart(t, "ledger-api", v))
	}
	f := newFleet(t)
	f.edit(t, "argocd/prod/appset-nodes.yaml", "repoURL: "+f.Charts.URL+"\n        chart: ledger-api",
		"repoURL: "+reg.host()+"/charts\n        chart: ledger-api")
	base := f.commit(t, "api chart from OCI, written without a scheme")
	f.edit(t, "argocd/prod/appset-nodes.yaml", `targetRevision: "1.3.0"`, `targetRevision: "1.3.1"`)
	head := f.commit(t, "bump")
	r := f.run(t, nil, "--base", base, "--head", head, "-o", "markdown", "--env", "prod")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
	}
	for _, want := range []string{
		"<details><summary>Deployment <code>ledger-node-a-api-prod</code> changed — same change in 3 apps: ",
		"<details><summary>Secret <code>ledger-node-a-api-prod-db</code> changed — same change in 3 apps: ",
		"**changed** Deployment `ledger-node-f/ledger-node-f-api-prod`: same change in 3 apps (see above).",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, r.out)
		}
	}
}
