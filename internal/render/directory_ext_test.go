package render

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestDirectoryAnyExtension: with directory.disableExtensionFilter Argo CD
// reads every file the include and exclude patterns keep, as YAML unless
// it ends in .json; a file that is not a manifest is skipped as usual.
func TestDirectoryAnyExtension(t *testing.T) {
	fsys := appFS()
	fsys["apps/web/deploy.tpl"] = &fstest.MapFile{Data: []byte(obj("tpl"))}
	fsys["apps/web/notes.txt"] = &fstest.MapFile{Data: []byte("just words: here\n")}
	for _, tc := range []struct {
		name, include string
		want          []string
	}{
		{"every file", "", []string{"a.yaml:a1", "a.yaml:a2", "a.yaml:a3", "b.yml:b", "c.json:c",
			"deploy.tpl:tpl", "secret-x.yaml:secret-x"}},
		{"include selects", "*.tpl", []string{"deploy.tpl:tpl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := DirectoryAnyExtension(fsys, "apps/web", false, tc.include, "{*.jsonnet,values.yaml}", nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, docIDs(t, out)); diff != "" {
				t.Errorf("documents (-want +got):\n%s", diff)
			}
		})
	}
}
