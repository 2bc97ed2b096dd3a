package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// An app's Argo CD warnings and an object created at sync reach every
// output, and a shard's report keeps them for Merge.
func TestWarningsAndGenerateNameInOutputs(t *testing.T) {
	const warning = "Resource /ConfigMap/team/c appeared 2 times among application resources."
	app := App{Env: "prod", Name: "web", Namespace: "team", Status: StatusChanged, Warnings: []string{warning},
		Resources: []diff.ResourceDiff{{APIVersion: "batch/v1", Kind: "Job", Namespace: "team",
			Name: diff.SyncName("migrate-", 1), GenerateName: "migrate-", Status: diff.Added, Diff: "@@ -0,0 +1 @@\n+kind: Job\n"}}}
	rep := Report{Base: "a", Head: "b", Apps: []App{app}}

	var js bytes.Buffer
	if err := JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"warnings": [`, warning, `"generateName": "migrate-"`, `"name": "migrate-<created at sync>"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("json lacks %q:\n%s", want, js.String())
		}
	}
	var md bytes.Buffer
	if err := Markdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Argo CD warns:") || !strings.Contains(md.String(), "created at sync") {
		t.Errorf("markdown lacks the warning or the created-at-sync name:\n%s", md.String())
	}

	rep.Shard = &Shard{Index: 1, Total: 1}
	js.Reset()
	if err := JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	back, err := ReadShard(&js, "shard.json")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(app, back.Apps[0]); d != "" {
		t.Errorf("shard round trip (-want +got):\n%s", d)
	}
}
