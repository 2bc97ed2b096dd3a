package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// scenario commits, on top of the example fleet, the kind of merge request
// manifestdiff reviews: a preprod API promotion (versions file and
// ApplicationSet), a qa node's values edit, a node added in prod and one
// removed in preprod. It returns the base and head SHAs.
func (f *fleet) scenario(t *testing.T) (base, head string) {
	t.Helper()
	base = gitRun(t, f.Dir, "rev-parse", "HEAD")
	f.edit(t, "versions/preprod.yaml", `chartVersion: "1.3.1"`, `chartVersion: "1.4.0"`)
	f.edit(t, "versions/preprod.yaml", `imageTag: "v3.1.4"`, `imageTag: "v3.2.0"`)
	f.edit(t, "argocd/preprod/appset-nodes.yaml", `targetRevision: "1.3.1"`, `targetRevision: "1.4.0"`)
	f.edit(t, "envs/qa/nodes/node-a/values-worker.yaml", "shard: a", "shard: a-2")
	f.write(t, "envs/prod/nodes/node-g/values-api.yaml", "api:\n  nodeId: g\n")
	f.write(t, "envs/prod/nodes/node-g/values-worker.yaml", "worker:\n  shard: g\n")
	f.remove(t, "envs/preprod/nodes/node-d")
	return base, f.commit(t, "promote ledger-node.api 1.4.0 to preprod; add node-g to prod; retire preprod node-d")
}

// scenarioStatuses is every app of the fleet after scenario. The preprod
// worker and gateway apps read the edited versions file, so they are
// rendered, but render the same: unchanged. The app-of-apps of preprod
// renders the edited ApplicationSet file, so it changed.
var scenarioStatuses = map[string]string{
	"qa/ledger-gateway-qa":                 "unchanged",
	"qa/ledger-node-a-api-qa":              "unchanged",
	"qa/ledger-node-a-worker-qa":           "changed",
	"qa/ledger-node-b-api-qa":              "unchanged",
	"qa/ledger-node-b-worker-qa":           "unchanged",
	"qa/ledger-node-c-api-qa":              "unchanged",
	"qa/ledger-node-c-worker-qa":           "unchanged",
	"qa/ledger-root-qa":                    "unchanged",
	"preprod/ledger-gateway-preprod":       "unchanged",
	"preprod/ledger-node-a-api-preprod":    "changed",
	"preprod/ledger-node-a-worker-preprod": "unchanged",
	"preprod/ledger-node-d-api-preprod":    "removed",
	"preprod/ledger-node-d-worker-preprod": "removed",
	"preprod/ledger-root-preprod":          "changed",
	"prod/ledger-gateway-prod":             "unchanged",
	"prod/ledger-node-a-api-prod":          "unchanged",
	"prod/ledger-node-a-worker-prod":       "unchanged",
	"prod/ledger-node-e-api-prod":          "unchanged",
	"prod/ledger-node-e-worker-prod":       "unchanged",
	"prod/ledger-node-f-api-prod":          "unchanged",
	"prod/ledger-node-f-worker-prod":       "unchanged",
	"prod/ledger-node-g-api-prod":          "added",
	"prod/ledger-node-g-worker-prod":       "added",
	"prod/ledger-root-prod":                "unchanged",
}

// jsonReport mirrors the documented JSON contract.
type jsonReport struct {
	Base, Head string
	Apps       []struct {
		Env, Name, Status, Error, NotRendered string
		Resources                             []struct {
			APIVersion, Kind, Namespace, Name, Status, Diff string
			Generated                                       []string
		}
	}
	Summary struct {
		Apps     int
		ByStatus map[string]int
	}
}

func parseJSON(t *testing.T, out string) jsonReport {
	t.Helper()
	var doc jsonReport
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return doc
}

func (doc jsonReport) statuses() map[string]string {
	m := map[string]string{}
	for _, a := range doc.Apps {
		m[a.Env+"/"+a.Name] = a.Status
	}
	return m
}

// secretValues are the ledger-api Secret passwords the scenario renders
// (s3cr3t-<namespace>-<chart version>), in every form a leak could take.
func secretValues() []string {
	var out []string
	for _, v := range []string{"ledger-node-a-1.3.1", "ledger-node-a-1.4.0", "ledger-node-d-1.3.1", "ledger-node-g-1.3.0"} {
		plain := "s3cr3t-" + v
		sum := sha256.Sum256([]byte(plain))
		out = append(out, plain, base64.StdEncoding.EncodeToString([]byte(plain)), hex.EncodeToString(sum[:]))
	}
	return out
}

func TestScenario(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	outs := map[string]string{}
	for _, format := range []string{"json", "markdown", "diff"} {
		r := f.run(t, nil, "--base", base, "--head", head, "-o", format)
		if r.code != 0 {
			t.Fatalf("-o %s: exit %d, stderr:\n%s", format, r.code, r.errOut)
		}
		outs[format] = r.out
	}
	doc := parseJSON(t, outs["json"])
	if diff := cmp.Diff(scenarioStatuses, doc.statuses()); diff != "" {
		t.Errorf("app statuses (-want +got):\n%s", diff)
	}
	if doc.Summary.Apps != len(scenarioStatuses) || doc.Summary.ByStatus["error"] != 0 {
		t.Errorf("summary = %+v", doc.Summary)
	}
	for _, a := range doc.Apps {
		for _, res := range a.Resources {
			// The charts leave metadata.namespace out; Argo CD applies
			// them in the destination namespace, and so must the diff.
			if want := nodeNamespace(a.Name); want != "" && res.Namespace != want {
				t.Errorf("%s/%s: %s %s in namespace %q", a.Env, a.Name, res.Kind, res.Name, res.Namespace)
			}
			// The worker's token comes from randAlphaNum: a second head
			// render tells it apart from a change, so it never shows.
			if a.Name == "ledger-node-a-worker-qa" && res.Kind == "Secret" {
				t.Errorf("generated token Secret reported as %s:\n%s", res.Status, res.Diff)
			}
		}
	}
	for format, out := range outs {
		for _, v := range secretValues() {
			if strings.Contains(out, v) {
				t.Errorf("-o %s leaks secret value %q", format, v)
			}
		}
	}
	norm := strings.NewReplacer(base, "BASE_SHA", head, "HEAD_SHA", strings.TrimPrefix(f.Charts.URL, "http://"), "127.0.0.1:PORT")
	golden(t, "scenario.md", norm.Replace(outs["markdown"]))
	golden(t, "scenario.json", norm.Replace(outs["json"]))
}

// nodeNamespace is the destination of a node app: ledger-node-a-api-qa
// deploys to ledger-node-a.
func nodeNamespace(app string) string {
	parts := strings.Split(app, "-")
	if len(parts) != 5 || parts[1] != "node" {
		return ""
	}
	return strings.Join(parts[:3], "-")
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", name, diff)
	}
}
