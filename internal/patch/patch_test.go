package patch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFind(t *testing.T) {
	const multi = "# lead\n---\nother: 1\n---\nkind: App\nx: &x2 [a]\nspec:\n  ref: &r {v: \"1.0\"}\n  alias: *r\n  val: *x2\n"
	tests := []struct {
		name    string
		in      string
		path    string
		want    Target
		wantErr error
	}{
		{name: "nested", in: "a:\n  b:\n    c: '1.0' # c\n", path: "a.b.c",
			want: Target{Path: "a.b.c", Line: 3, Column: 8, Value: "1.0", Style: "single"}},
		{name: "first document that has it", in: "a: 1\n---\nb: x\n---\nb: y\n", path: "b",
			want: Target{Doc: 1, Path: "b", Line: 3, Column: 4, Value: "x", Style: "plain"}},
		{name: "through an alias", in: "a: &a {b: x}\nc: *a\n", path: "c.b",
			want: Target{Path: "a.b", Line: 1, Column: 11, Value: "x", Style: "plain"}},
		{name: "alias at the end", in: "a: &a x\nc: *a\n", path: "c",
			want: Target{Path: "c", Line: 2, Column: 4, Value: "x", Style: "alias"}},
		{name: "templated", in: "r: \"{{ .v }}\"\n", path: "r",
			want: Target{Path: "r", Line: 1, Column: 4, Value: "{{ .v }}", Style: "double", Templated: true}},
		{name: "literal", in: "r: |\n  x\n", path: "r",
			want: Target{Path: "r", Line: 1, Column: 4, Value: "x\n", Style: "literal"}},
		{name: "missing", in: multi, path: "spec.nope", wantErr: ErrNotFound},
		{name: "mapping", in: multi, path: "spec.ref", wantErr: ErrNotScalar},
		{name: "alias to sequence", in: multi, path: "spec.val", wantErr: ErrNotScalar},
		{name: "empty path", in: "a: 1\n", path: "", wantErr: ErrNotFound},
		{name: "parse error", in: "a: [\n", path: "a", wantErr: ErrParse},
		{name: "utf-16", in: "\xFF\xFEa\x00", path: "a", wantErr: ErrUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var keys []string
			if tc.path != "" {
				keys = strings.Split(tc.path, ".")
			}
			got, err := Find([]byte(tc.in), keys)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Find (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHelmSources(t *testing.T) {
	in := readGolden(t, "app-and-appset")
	got, err := HelmSources(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []HelmSource{{
		Doc: 0, Kind: "Application", Name: "shared-staging", Path: "spec.sources[0]",
		Chart: "shared", RepoURL: "https://charts.example.com/helm", HasRevision: true,
		Revision: Target{Path: "spec.sources[0].targetRevision", Line: 10, Column: 23, Value: "2.1.0", Style: "single"},
	}, {
		Doc: 1, Kind: "ApplicationSet", Name: "worker-staging", Path: "spec.template.spec.source",
		Chart: "worker", RepoURL: "https://charts.example.com/helm", HasRevision: true,
		Revision: Target{Doc: 1, Path: "spec.template.spec.source.targetRevision", Line: 31, Column: 25, Value: "1.0.3", Style: "plain"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("HelmSources (-want +got):\n%s", diff)
	}
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", name+".in.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHelmSourcesEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string // Path chart@revision
		wantErr error
	}{
		{name: "not mappings", in: "- a\n---\nplain\n---\n# only a comment\n", want: nil},
		{name: "no revision", in: "spec:\n  source: {chart: c, repoURL: r}\n", want: []string{"spec.source c@-"}},
		{name: "git source skipped", in: "spec:\n  sources:\n  - {repoURL: r, path: p}\n  - {chart: c, targetRevision: 1.0.0}\n",
			want: []string{"spec.sources[1] c@1.0.0"}},
		{name: "both source and sources", in: "spec:\n  source: {chart: a, targetRevision: \"1\"}\n  sources: [{chart: b, targetRevision: \"2\"}]\n",
			want: []string{"spec.source a@1", "spec.sources[0] b@2"}},
		{name: "templated revision", in: "spec:\n  template:\n    spec:\n      source: {chart: c, targetRevision: '{{v}}'}\n",
			want: []string{"spec.template.spec.source c@{{v}}!"}},
		{name: "revision not scalar", in: "spec:\n  source: {chart: c, targetRevision: [1]}\n", wantErr: ErrNotScalar},
		{name: "parse error", in: "spec: {\n", wantErr: ErrParse},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srcs, err := HelmSources([]byte(tc.in))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			var got []string
			for _, s := range srcs {
				rev := "-"
				if s.HasRevision {
					rev = s.Revision.Value
				}
				if s.Revision.Templated {
					rev += "!"
				}
				got = append(got, s.Path+" "+s.Chart+"@"+rev)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("HelmSources (-want +got):\n%s", diff)
			}
		})
	}
}
