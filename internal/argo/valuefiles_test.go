package argo

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

func TestValueFiles(t *testing.T) {
	ours := Source{RepoURL: "HTTPS://git.example.org/platform/ledger-gitops/", Ref: "values", Kind: KindRef}
	foreign := Source{RepoURL: "https://git.example.org/other.git", Ref: "ext", Kind: KindRef}
	chart := func(ignore bool, files ...string) Source {
		return Source{RepoURL: "https://charts.example.org", Chart: "c", Kind: KindHelm,
			Helm: &Helm{ValueFiles: files, IgnoreMissingValueFiles: ignore}}
	}
	gitChart := Source{RepoURL: testRepo, Path: "charts/tool", Kind: KindHelm,
		Helm: &Helm{ValueFiles: []string{"values-qa.yaml", "../shared/v.yaml", "/envs/qa/x.yaml"}}}
	tests := []struct {
		name    string
		src     Source
		others  []Source
		want    []ValueFile
		wantErr string
	}{
		{name: "ref to this repo", src: chart(false, "$values/envs/qa/a.yaml", "$values//envs/../envs/b.yaml"), others: []Source{ours},
			want: []ValueFile{{Path: "envs/qa/a.yaml", InRepo: true}, {Path: "envs/b.yaml", InRepo: true}}},
		{name: "optional", src: chart(true, "$values/envs/qa/a.yaml", "values-qa.yaml"), others: []Source{ours},
			want: []ValueFile{{Path: "envs/qa/a.yaml", InRepo: true, Optional: true}, {Path: "values-qa.yaml", Optional: true}}},
		{name: "chart relative", src: chart(false, "values-qa.yaml", "./ci/x.yaml", "/root.yaml"),
			want: []ValueFile{{Path: "values-qa.yaml"}, {Path: "ci/x.yaml"}, {Path: "root.yaml"}}},
		{name: "git path chart in this repo", src: gitChart,
			want: []ValueFile{{Path: "charts/tool/values-qa.yaml", InRepo: true}, {Path: "charts/shared/v.yaml", InRepo: true}, {Path: "envs/qa/x.yaml", InRepo: true}}},
		{name: "app name variable", src: chart(false, "$values/envs/$ARGOCD_APP_NAME.yaml"), others: []Source{ours},
			want: []ValueFile{{Path: "envs/app.yaml", InRepo: true}}},
		{name: "ref to another repo", src: chart(false, "$ext/envs/qa/a.yaml"), others: []Source{foreign},
			want: []ValueFile{{Path: "envs/qa/a.yaml", Repo: "https://git.example.org/other.git"}}},
		{name: "git path chart in another repo", src: Source{RepoURL: "https://git.example.org/other.git", Path: "charts/tool", Kind: KindHelm,
			Helm: &Helm{ValueFiles: []string{"values-qa.yaml", "../shared/v.yaml", "/envs/qa/x.yaml"}}},
			want: []ValueFile{{Path: "charts/tool/values-qa.yaml", Repo: "https://git.example.org/other.git"},
				{Path: "charts/shared/v.yaml", Repo: "https://git.example.org/other.git"}, {Path: "envs/qa/x.yaml", Repo: "https://git.example.org/other.git"}}},
		{name: "unknown ref", src: chart(false, "$nope/a.yaml"), others: []Source{ours},
			wantErr: `source referenced "$nope", which is not one of the available sources ($values)`},
		{name: "no ref at all", src: chart(false, "$nope/a.yaml"), others: []Source{{RepoURL: testRepo, Path: "x"}},
			wantErr: `source referenced "$nope", but no source has a 'ref' field defined`},
		{name: "variable path with several sources", src: chart(false, "$ARGOCD_APP_NAME/b.yaml"), others: []Source{ours},
			wantErr: `source referenced "$ARGOCD_APP_NAME", which is not one of the available sources`},
		{name: "unknown ref, one source: a variable, empty", src: chart(false, "$nope/a.yaml", "$ARGOCD_APP_NAME/b.yaml", "${x}c.yaml"),
			want: []ValueFile{{Path: "a.yaml"}, {Path: "app/b.yaml"}, {Path: "c.yaml"}}},
		{name: "ref to a chart", src: chart(false, "$values/a.yaml"), others: []Source{{RepoURL: testRepo, Chart: "c2", Ref: "values"}},
			wantErr: "source has a 'chart' field defined, but Helm charts are not yet not supported for 'ref' sources"},
		{name: "escapes repo", src: chart(false, "$values/../secret.yaml"), others: []Source{ours}, wantErr: "inside the repository"},
		{name: "escapes chart", src: chart(false, "../x.yaml"), wantErr: "inside the chart"},
		{name: "remote", src: chart(true, "https://example.org/v-*.yaml", "http://example.org/$ARGOCD_APP_NAME.yaml"),
			want: []ValueFile{{Path: "https://example.org/v-*.yaml", Remote: true, Optional: true}, {Path: "http://example.org/app.yaml", Remote: true, Optional: true}}},
		{name: "other scheme", src: chart(false, "s3://bucket/v.yaml"), wantErr: "the URL scheme 's3' is not allowed"},
		{name: "revision variables", src: chart(false, "$values/$ARGOCD_APP_REVISION.yaml", "$values/${ARGOCD_APP_REVISION_SHORT}/${ARGOCD_APP_REVISION_SHORT_8}.yaml"), others: []Source{ours},
			want: []ValueFile{{Path: "0123456789abcdef.yaml", InRepo: true}, {Path: "0123456/01234567.yaml", InRepo: true}}},
		{name: "every build variable, $$ and unknown ones", src: chart(false, "$values/$ARGOCD_APP_NAMESPACE/${ARGOCD_APP_PROJECT_NAME}/$ARGOCD_APP_SOURCE_TARGET_REVISION-$$x-$HOME.yaml"), others: []Source{ours},
			want: []ValueFile{{Path: "ns/proj/1.0.0-$x-.yaml", InRepo: true}}},
		{name: "glob kept for expansion", src: chart(false, "$values/values/glob/*.yaml", "ci/*.yaml"), others: []Source{ours},
			want: []ValueFile{{Path: "values/glob/*.yaml", InRepo: true}, {Path: "ci/*.yaml"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := App{Name: "app", Namespace: "ns", Project: "proj", Sources: append([]Source{tt.src}, tt.others...),
				MultiSource: len(tt.others) > 0}
			tt.src.TargetRevision = "1.0.0"
			got, err := app.ValueFiles(tt.src, testRepo, app.buildEnv(tt.src, "0123456789abcdef"), config.DefaultValuesFileSchemes)
			checkResolved(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestSameRepo(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://git.example.org/a/b.git", "HTTPS://git.example.org/a/b/", true},
		{"https://git.example.org/a/b.git/", "https://git.example.org/a/b", true},
		{"https://git.example.org/a/b", "https://git.example.org/a/c", false},
	}
	for _, tt := range tests {
		if got := SameRepo(tt.a, tt.b); got != tt.want {
			t.Errorf("SameRepo(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

func TestFileParams(t *testing.T) {
	ours := Source{RepoURL: testRepo, Ref: "values", Kind: KindRef}
	src := func(chart bool, fps ...FileParameter) Source {
		s := Source{RepoURL: testRepo, Path: "charts/tool", Kind: KindHelm, Helm: &Helm{FileParameters: fps}}
		if chart {
			s = Source{RepoURL: "https://charts.example.org", Chart: "c", Kind: KindHelm, Helm: &Helm{FileParameters: fps}}
		}
		return s
	}
	tests := []struct {
		name    string
		src     Source
		want    []FileParam
		wantErr string
	}{
		{name: "repository chart: chart relative", src: src(true, FileParameter{"a.b", "files/x.conf"}, FileParameter{"c", "/y.txt"}),
			want: []FileParam{{"a.b", ValueFile{Path: "files/x.conf"}}, {"c", ValueFile{Path: "y.txt"}}}},
		{name: "chart in this repo: repository paths", src: src(false, FileParameter{"a", "files/x.conf"}, FileParameter{"b", "/envs/prod/$ARGOCD_APP_NAME.txt"}),
			want: []FileParam{{"a", ValueFile{Path: "charts/tool/files/x.conf", InRepo: true}}, {"b", ValueFile{Path: "envs/prod/app.txt", InRepo: true}}}},
		{name: "ref path", src: src(true, FileParameter{"a", "$values/envs/$ARGOCD_APP_NAME.txt"}),
			want: []FileParam{{"a", ValueFile{Path: "envs/app.txt", InRepo: true}}}},
		{name: "escapes chart", src: src(true, FileParameter{"a", "../x"}), wantErr: `file parameter a: path "../x": must name a file inside the chart`},
		{name: "remote", src: src(true, FileParameter{"a", "https://example.org/x"}), want: []FileParam{{Name: "a", File: ValueFile{Path: "https://example.org/x", Remote: true}}}},
		{name: "no name", src: src(true, FileParameter{"", "x"}), wantErr: "needs both name and path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := App{Name: "app", Sources: []Source{tt.src, ours}}
			got, err := app.FileParams(tt.src, testRepo, app.buildEnv(tt.src, "rev"), config.DefaultValuesFileSchemes)
			checkResolved(t, got, err, tt.want, tt.wantErr)
		})
	}
}

// checkResolved compares a resolution with the table's want, or its error
// with the table's wantErr.
func checkResolved[T any](t *testing.T, got T, err error, want T, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
