package html

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/syncready"
)

// The page opens with the "Will not sync" section, before the summary,
// new findings first; a message is text, never markup.
func TestWillNotSyncSection(t *testing.T) {
	r := report.Report{Base: "b", Head: "h", Apps: []report.App{{Env: "prod", Name: "web", Status: report.StatusChanged}},
		Findings: []syncready.Finding{
			{Rule: "api-removed", Severity: "error", Env: "prod", App: "web", APIVersion: "batch/v1beta1", Kind: "CronJob",
				Namespace: "web", Name: "job", Message: "not served <script>alert(1)</script>"},
			{Rule: "shared-resource", Severity: "error", Env: "prod", App: "web", Kind: "ConfigMap", Message: "old one", Preexisting: true},
			{Rule: "project-missing", Severity: "info", Env: "qa", Message: "info only"},
		}}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	section, summary := strings.Index(page, `<section id="will-not-sync">`), strings.Index(page, `<section id="summary">`)
	if section < 0 || summary < section {
		t.Fatalf("no Will not sync section before the summary:\n%s", page)
	}
	text := page[section:summary]
	for _, want := range []string{"Will not sync: 1 error", "<b>prod/web</b>", "<code>batch/v1beta1 CronJob web/job</code>",
		"not served &lt;script&gt;alert(1)&lt;/script&gt;", "Already on the target branch: 1 error"} {
		if !strings.Contains(text, want) {
			t.Errorf("section lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "info only") || strings.Contains(page, "<script>alert") {
		t.Errorf("an info finding or raw markup in the page:\n%s", text)
	}
	parseDoc(t, b.Bytes()) // still a page a browser reads
}
