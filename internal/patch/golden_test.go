package patch_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/patch"
)

var update = flag.Bool("update", false, "rewrite the golden .out.yaml files")

// goldenEdit names one value to change, by exactly one of: a dotted key
// path for patch.Find, a yq expression for Select, or a chart name whose
// targetRevision patch.HelmSources reports.
type goldenEdit struct {
	find, expr, chart string
	new               string
}

var goldenCases = []struct {
	name    string
	edits   []goldenEdit
	wantErr error // no .out.yaml exists when set
}{
	{name: "comments", edits: []goldenEdit{
		{find: "payments.api.chartVersion", new: "4.3.0"},
		{find: "payments.api.imageTag", new: "v4.3.0"},
		{find: "payments.worker.chartVersion", new: "1.1.0"},
		{find: "ledger.chartVersion", new: "0.10.0"},
		{find: "ledger.imageTag", new: "sha-4d5e6f"},
	}},
	{name: "blank-lines", edits: []goldenEdit{
		{find: "alpha.chartVersion", new: "1.1.0"},
		{find: "alpha.imageTag", new: "v2"},
		{find: "beta.chartVersion", new: "2.0.1"},
	}},
	{name: "crlf", edits: []goldenEdit{
		{find: "apps.web.chartVersion", new: "3.2.0"},
		{find: "apps.db.chartVersion", new: "1.5.0"},
	}},
	{name: "no-final-newline", edits: []goldenEdit{
		{find: "svc.imageTag", new: "v0.2.0"},
	}},
	{name: "flow", edits: []goldenEdit{
		{find: "frontend.chartVersion", new: "2.4.0"},
		{find: "frontend.imageTag", new: "v1.6.0"},
		{find: "backend.chartVersion", new: "3.2.0"},
		{find: "backend.imageTag", new: "v2.2.0"},
		{expr: ".extraTags[0]", new: "a,b"},
		{expr: ".extraTags[1]", new: "v2.1"},
		{expr: ".nested.images[0].tag", new: "v10"},
	}},
	{name: "sequences", edits: []goldenEdit{
		{expr: `.unindented[] | select(.name == "a") | .version`, new: "1.1.0"},
		{expr: `.unindented[1].version`, new: "1.2.0"},
		{expr: `.fourSpaces[0].version`, new: "2.1.0"},
		{expr: `.fourSpaces[1].version`, new: "2.2.0"},
		{expr: `.plain[1]`, new: "z"},
	}},
	{name: "anchors", edits: []goldenEdit{
		{find: "web.chartVersion", new: "1.1.0"},
		{find: "worker.chartVersion", new: "2.1.0"},
		{find: "worker.imageTag", new: "v2.1.0"},
	}},
	{name: "multidoc", edits: []goldenEdit{
		{expr: `select(.metadata.name == "second") | .data.version`, new: "2.0.0"},
		{expr: `select(.metadata.name == "third") | .data.version`, new: "3.0.0"},
	}},
	{name: "templated", edits: []goldenEdit{{chart: "web", new: "1.2.3"}}, wantErr: patch.ErrUnsupported},
	{name: "float-quoted", edits: []goldenEdit{
		{find: "chart.version", new: "1.10"},
		{find: "chart.other", new: "1.10.0"},
		{find: "chart.tag", new: "true"},
	}},
	{name: "single-apostrophe", edits: []goldenEdit{
		{find: "release.note", new: "it's 1.1, isn't it"},
		{find: "release.version", new: "1.1.0"},
	}},
	{name: "non-ascii", edits: []goldenEdit{
		{find: "équipe.versión", new: "1.1.0"},
		{find: "größe", new: "grün"},
		{find: "emoji", new: "🛸 now"},
		{find: "tag", new: "v2"},
	}},
	{name: "appset", edits: []goldenEdit{{chart: "payments-api", new: "4.3.0"}}},
	{name: "application", edits: []goldenEdit{{chart: "ledger", new: "0.10.0"}}},
	{name: "app-and-appset", edits: []goldenEdit{
		{chart: "shared", new: "2.2.0"},
		{chart: "worker", new: "1.1.0"},
	}},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			base := filepath.Join("testdata", "golden", tc.name)
			in, err := os.ReadFile(base + ".in.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var changes []patch.Change
			for _, e := range tc.edits {
				changes = append(changes, patch.Change{Target: goldenTarget(t, in, e), New: e.new})
			}
			got, err := patch.Apply(in, changes)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Apply error = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if *update {
				if err := os.WriteFile(base+".out.yaml", got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(base + ".out.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("output differs from %s.out.yaml (-want +got):\n%s", base, diff)
			}
			assertOnlyValuesChanged(t, in, got, changes)
		})
	}
}

// goldenTarget resolves one goldenEdit against the input.
func goldenTarget(t *testing.T, in []byte, e goldenEdit) patch.Target {
	t.Helper()
	switch {
	case e.find != "":
		tg, err := patch.Find(in, strings.Split(e.find, "."))
		if err != nil {
			t.Fatalf("Find(%s): %v", e.find, err)
		}
		return tg
	case e.expr != "":
		tgs, err := yqSelect(in, e.expr)
		if err != nil || len(tgs) != 1 {
			t.Fatalf("Select(%s) = %v, %v; want one target", e.expr, tgs, err)
		}
		return tgs[0]
	}
	srcs, err := patch.HelmSources(in)
	if err != nil {
		t.Fatalf("HelmSources: %v", err)
	}
	for _, s := range srcs {
		if s.Chart == e.chart && s.HasRevision {
			return s.Revision
		}
	}
	t.Fatalf("no helm source for chart %q in %+v", e.chart, srcs)
	return patch.Target{}
}
