package argo

import (
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestGitFilesNewGlobbing: with argocd.applicationSet.newGitFileGlobbing
// (the controller's --enable-new-git-file-globbing) a git files path is a
// doublestar glob, as Argo CD's documentation shows: "*" no longer
// reaches a subchart's values.yaml, "**" does, {a,b} alternates; a
// pattern that matches a directory fails, as Argo CD fails reading it.
// Without the switch the same paths are `git ls-files` pathspecs.
func TestGitFilesNewGlobbing(t *testing.T) {
	files := map[string]string{
		"cluster-charts/c1/mychart/values.yaml":                   "name: mychart",
		"cluster-charts/c1/mychart/charts/mysubchart/values.yaml": "name: mysubchart",
		"cluster-charts/c1/myotherchart/values.yaml":              "name: myotherchart",
		"cluster-charts/c2/third/values.yaml":                     "name: third",
		"cluster-charts/c2/third/.hidden/values.yaml":             "name: hidden",
	}
	for _, tc := range []struct {
		newGlobbing bool
		include     string
		exclude     string
		want        []string
		wantErr     string
	}{
		{false, "cluster-charts/*/*/values.yaml", "", []string{"mychart", "mysubchart", "myotherchart", "hidden", "third"}, ""},
		{true, "cluster-charts/*/*/values.yaml", "", []string{"myotherchart", "mychart", "third"}, ""},
		{true, "/cluster-charts/**/values.yaml", "", []string{"myotherchart", "mychart", "mysubchart", "hidden", "third"}, ""},
		{true, "./cluster-charts/c1/{mychart,myotherchart}/values.yaml", "", []string{"myotherchart", "mychart"}, ""},
		{true, "cluster-charts/**/values.yaml", "cluster-charts/c1/*/charts/*/values.yaml", []string{"myotherchart", "mychart", "hidden", "third"}, ""},
		{true, "../cluster-charts/*/*/values.yaml", "", nil, ""},
		{true, "cluster-charts/c2/*", "", nil, `path "cluster-charts/c2/*" matches the directory cluster-charts/c2/third`},
	} {
		gens := "  - git:\n      repoURL: " + testRepo + "\n      files: [{path: '" + tc.include + "'}"
		if tc.exclude != "" {
			gens += ", {path: '" + tc.exclude + "', exclude: true}"
		}
		gens += "]"
		fsys := tree(appSet("", gens, `"{{name}}"`, ""))
		for p, data := range files {
			fsys[p] = &fstest.MapFile{Data: []byte(data)}
		}
		cfg := testConfig(t)
		cfg.Argo.ApplicationSet.NewGitFileGlobbing = tc.newGlobbing
		apps, err := Discover(fsys, cfg, "qa")
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v %q: err = %v, want %q", tc.newGlobbing, tc.include, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v %q: %v", tc.newGlobbing, tc.include, err)
		}
		got := names(apps)
		want := append([]string{}, tc.want...)
		if len(want) == 0 {
			want = nil
		}
		sort.Strings(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("new globbing %v, %q minus %q (-want +got):\n%s", tc.newGlobbing, tc.include, tc.exclude, diff)
		}
	}
}
