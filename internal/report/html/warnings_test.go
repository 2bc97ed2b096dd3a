package html

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// An app's Argo CD warnings show under it, escaped like any text.
func TestAppWarnings(t *testing.T) {
	app := report.App{Env: "qa", Name: "web", Status: report.StatusChanged,
		Warnings: []string{"Resource /ConfigMap/team/<b>c</b> appeared 2 times among application resources."},
		Resources: []diff.ResourceDiff{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team", Name: "c",
			Status: diff.Changed, Diff: "@@ -1 +1 @@\n-a\n+b\n"}}}
	var b bytes.Buffer
	if err := Write(&b, report.Report{Base: "a", Head: "b", Apps: []report.App{app}}); err != nil {
		t.Fatal(err)
	}
	want := `<p class="note">Argo CD warns: Resource /ConfigMap/team/&lt;b&gt;c&lt;/b&gt; appeared 2 times among application resources.</p>`
	if !strings.Contains(b.String(), want) {
		t.Errorf("page lacks %s", want)
	}
}
