package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/syncready"
)

func findingsReport() Report {
	return Report{Base: "b", Head: "h", Apps: []App{{Env: "prod", Name: "web", Status: StatusChanged}},
		Findings: []syncready.Finding{
			{Rule: "api-removed", Severity: "error", Env: "prod", App: "web", APIVersion: "extensions/v1beta1", Kind: "Ingress",
				Namespace: "web", Name: "site", Message: "extensions/v1beta1 Ingress is not served from Kubernetes 1.22 (env runs 1.31)"},
			{Rule: "api-deprecated", Severity: "warning", Env: "prod", App: "web", APIVersion: "batch/v1beta1", Kind: "CronJob",
				Namespace: "web", Name: "job", Message: "deprecated <b>|`x`"},
			{Rule: "project-missing", Severity: "info", Env: "qa", Message: "no AppProject"},
			{Rule: "shared-resource", Severity: "error", Env: "prod", App: "web", APIVersion: "v1", Kind: "ConfigMap",
				Namespace: "web", Name: "c", Message: "also rendered by api in env prod", Preexisting: true},
		}}
}

// The note opens with the new errors and warnings, the preexisting ones
// folded after them, info left to the JSON; messages are escaped.
func TestWillNotSyncMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, findingsReport()); err != nil {
		t.Fatal(err)
	}
	note := b.String()
	head := strings.Index(note, "### :no_entry: Will not sync: 1 error, 1 warning\n")
	old := strings.Index(note, "<details><summary>Already on the target branch: 1 error</summary>")
	diff := strings.Index(note, "### Manifest diff")
	if head < 0 || old < head || diff < old {
		t.Fatalf("sections missing or out of order:\n%s", note)
	}
	for _, want := range []string{"- **prod/web**\n", ":x: `api-removed` `extensions/v1beta1 Ingress web/site`:",
		"deprecated &lt;b&gt;\\|\\`x\\`"} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(note, "no AppProject") {
		t.Errorf("an info finding is in the note:\n%s", note)
	}
}

func TestWillNotSyncTerminal(t *testing.T) {
	var b bytes.Buffer
	if err := Diff(&b, findingsReport(), false); err != nil {
		t.Fatal(err)
	}
	want := "Will not sync: 1 error, 1 warning\n  error api-removed prod/web extensions/v1beta1 Ingress web/site: "
	if !strings.HasPrefix(b.String(), want) || !strings.Contains(b.String(), "Already on the target branch: 1 error\n") {
		t.Errorf("terminal diff:\n%s", b.String())
	}
}

// Findings survive a shard's JSON and a merge, in the report's env order.
func TestFindingsThroughShards(t *testing.T) {
	r := findingsReport()
	envs := []string{"qa", "prod"}
	var shards []Report
	for i, fs := range [][]syncready.Finding{r.Findings[2:], r.Findings[:2]} {
		s := Report{Base: "b", Head: "h", Findings: fs, Shard: &Shard{Index: i + 1, Total: 2, Envs: envs}}
		var buf bytes.Buffer
		if err := JSON(&buf, s); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), `"findings": [`) {
			t.Fatalf("no findings in the JSON:\n%s", buf.String())
		}
		back, err := ReadShard(&buf, "s.json")
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, back)
	}
	merged, err := Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	want := []syncready.Finding{r.Findings[0], r.Findings[1], r.Findings[2], r.Findings[3]}
	if d := cmp.Diff(want, merged.Findings); d != "" {
		t.Errorf("merged findings (-want +got):\n%s", d)
	}
}
