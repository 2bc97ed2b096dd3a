package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// Drift is measured from the base revision, whichever it is: the note,
// the terminal diff and the HTML report (report/html) name it as given,
// never "main" by default.
func TestLiveDriftNamesTheBase(t *testing.T) {
	drifted := diff.Resources(parse(t, deployment("web", "web:1"), "qa"), parse(t, deployment("web", "web:hotfix"), "qa"), nil, diff.Options{})[0]
	for _, tt := range []struct{ base, md, text string }{
		{"release/2.4", "drift: the cluster no longer matches release/2.4", "drift: the cluster no longer matches release/2.4"},
		{"merge-base(origin/main, HEAD)", "drift: the cluster no longer matches merge-base(origin/main, HEAD)",
			"drift: the cluster no longer matches merge-base(origin/main, HEAD)"},
		{"hot_fix*1", `drift: the cluster no longer matches hot\_fix\*1`, "drift: the cluster no longer matches hot_fix*1"},
		{"", "drift: the cluster no longer matches the base revision", "drift: the cluster no longer matches the base revision"},
	} {
		r := Report{Base: tt.base, Head: "mr", LiveEnvs: []LiveEnv{{Env: "qa", Cluster: "qa"}}, Apps: []App{{Env: "qa", Name: "web", Status: StatusUnchanged,
			Live: &Live{Drift: []LiveResource{{ResourceDiff: drifted, Action: LiveModified}}}}}}
		var md, term bytes.Buffer
		if err := Markdown(&md, r); err != nil {
			t.Fatal(err)
		}
		if err := Diff(&term, r, false); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(md.String(), "**"+tt.md+"**") || !strings.Contains(term.String(), "("+tt.text+")") {
			t.Errorf("base %q: markdown:\n%s\nterminal:\n%s", tt.base, md.String(), term.String())
		}
		if tt.base != "" && strings.Contains(md.String()+term.String(), "matches main") {
			t.Errorf("base %q: drift named main", tt.base)
		}
	}
}
