package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

const (
	cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n"
)

func obj(name string) string { return strings.Replace(cm, "%s", name, 1) }

// appFS is a repository with an app directory mixing every case Argo CD
// distinguishes.
func appFS() fstest.MapFS {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	return fstest.MapFS{
		"apps/web/a.yaml": f("# leading comment only\n---\n" + obj("a1") + "---\n\n---\n# just a comment\n...\n" +
			obj("a2") + "--- # trailing marker comment\n" + obj("a3")),
		"apps/web/b.yml":          f("\ufeff" + strings.ReplaceAll(obj("b"), "\n", "\r\n")),
		"apps/web/c.json":         f(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}` + "\n"),
		"apps/web/values.yaml":    f("replicas: 2\nimage: nginx\n"), // not a manifest: ignored
		"apps/web/README.md":      f("# docs\n"),
		"apps/web/kustom.jsonnet": f("{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'j'}}"),
		"apps/web/secret-x.yaml":  f(obj("secret-x")),
		"apps/web/sub/d.yaml":     f(obj("d")),
		"apps/web/sub/deep/e.yml": f(obj("e")),
		"apps/other/z.yaml":       f(obj("z")),
	}
}

func TestDirectory(t *testing.T) {
	for _, tc := range []struct {
		name             string
		dir              string
		recurse          bool
		include, exclude string
		want             []string // "path:name" of each document, in order
	}{
		{"flat", "apps/web", false, "", "", []string{
			"a.yaml:a1", "a.yaml:a2", "a.yaml:a3", "b.yml:b", "c.json:c", "kustom.jsonnet:j", "secret-x.yaml:secret-x"}},
		{"recurse", "apps/web", true, "", "", []string{
			"a.yaml:a1", "a.yaml:a2", "a.yaml:a3", "b.yml:b", "c.json:c", "kustom.jsonnet:j", "secret-x.yaml:secret-x",
			"sub/d.yaml:d", "sub/deep/e.yml:e"}},
		{"include brace", "apps/web", true, "{a.yaml,sub/*}", "", []string{
			"a.yaml:a1", "a.yaml:a2", "a.yaml:a3", "sub/d.yaml:d", "sub/deep/e.yml:e"}},
		{"star crosses slashes", "apps/web", true, "*.yml", "", []string{"b.yml:b", "sub/deep/e.yml:e"}},
		{"exclude wins over include", "apps/web", true, "*.yaml", "{secret-*,sub/deep/*}", []string{
			"a.yaml:a1", "a.yaml:a2", "a.yaml:a3", "sub/d.yaml:d"}},
		{"exclude json", "apps/web", false, "", "*.json", []string{
			"a.yaml:a1", "a.yaml:a2", "a.yaml:a3", "b.yml:b", "kustom.jsonnet:j", "secret-x.yaml:secret-x"}},
		{"root", ".", true, "apps/other/*", "", []string{"apps/other/z.yaml:z"}},
		{"trailing slash", "apps/other/", false, "", "", []string{"z.yaml:z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Directory(appFS(), tc.dir, tc.recurse, tc.include, tc.exclude)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, docIDs(t, out)); diff != "" {
				t.Errorf("documents (-want +got):\n%s", diff)
			}
		})
	}
}

// docIDs names each "---\n# Source: <path>\n<doc>" block as path:name.
func docIDs(t *testing.T, out []byte) []string {
	t.Helper()
	var ids []string
	for _, block := range strings.Split(string(out), "---\n# Source: ")[1:] {
		src, doc, _ := strings.Cut(block, "\n")
		name := ""
		for _, line := range strings.Split(doc, "\n") {
			if n, ok := strings.CutPrefix(strings.TrimSpace(line), "name: "); ok {
				name = strings.TrimSpace(n)
			}
		}
		if i := strings.Index(doc, `"name": "`); name == "" && i >= 0 {
			name, _, _ = strings.Cut(doc[i+len(`"name": "`):], `"`)
		}
		ids = append(ids, src+":"+name)
	}
	return ids
}

func TestDirectoryGolden(t *testing.T) {
	out, err := Directory(appFS(), "apps/web", true, "", "")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "golden", "directory-web.yaml"), out)
}

func TestDirectoryErrors(t *testing.T) {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name    string
		files   fstest.MapFS
		include string
		want    string
	}{
		{"bad doc after a good one", fstest.MapFS{"app/x.yaml": f(obj("ok") + "---\nkey: [unclosed\n")},
			"", `render directory "app": x.yaml: parse yaml document 2:`},
		{"broken manifest", fstest.MapFS{"app/x.yaml": f("apiVersion: v1\nkind: ConfigMap\nmetadata: [\n")},
			"", "x.yaml: parse yaml document 1:"},
		{"object without kind", fstest.MapFS{"app/x.yaml": f(obj("ok") + "---\napiVersion: v1\nmetadata: {}\n")},
			"", "object has no kind"},
		{"two json objects", fstest.MapFS{"app/x.json": f(`{"kind":"A"} {"kind":"B"}`)},
			"", "more than one object in a json file"},
		{"bad json", fstest.MapFS{"app/x.json": f(`{"kind":`)}, "", "x.json: parse json:"},
		{"missing dir", fstest.MapFS{"other/x.yaml": f(obj("x"))}, "", `render directory "app"`},
		{"bad glob", fstest.MapFS{"app/x.yaml": f(obj("x"))}, "[a", `invalid directory glob "[a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Directory(tc.files, "app", false, tc.include, "")
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// TestDirectorySymlinks uses a real directory: symlinks to files are
// followed, dangling ones skipped, as Argo CD does inside the repository.
func TestDirectorySymlinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "real.yaml"), []byte(obj("real")), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link.yaml": "real.yaml", "dangling.yaml": "missing.yaml"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	out, err := Directory(os.DirFS(dir), ".", false, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"link.yaml:real", "real.yaml:real"}, docIDs(t, out)); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
}

func TestSplitYAML(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a: 1\n", []string{"a: 1\n"}},
		{"---\na: 1\n---\nb: 2", []string{"", "a: 1\n", "b: 2"}},
		{"a: |\n  ---\n  text\n", []string{"a: |\n  ---\n  text\n"}}, // indented: content
		{"a: 1\n---- not a marker\n", []string{"a: 1\n---- not a marker\n"}},
		{"a: 1\r\n---\r\nb: 2\r\n", []string{"a: 1\r\n", "b: 2\r\n"}},
		{"--- {a: 1}\n...\n", []string{"", "{a: 1}\n", ""}},
	} {
		if diff := cmp.Diff(tc.want, splitYAML(tc.in)); diff != "" {
			t.Errorf("splitYAML(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestDirectorySkipFileRendering: Argo CD skips a file of a directory
// source that holds "+argocd:skip-file-rendering" anywhere, even a file
// that would not parse.
func TestDirectorySkipFileRendering(t *testing.T) {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	fsys := fstest.MapFS{
		"d/a.yaml":    f(obj("a")),
		"d/b.yaml":    f("# +argocd:skip-file-rendering\n" + obj("b")),
		"d/c.yaml":    f(obj("c") + "  annotations: {note: '+argocd:skip-file-rendering'}\n"),
		"d/d.json":    f(`{"kind": "ConfigMap", "note": "+argocd:skip-file-rendering"}`),
		"d/e.yaml":    f("# +argocd:skip-file-rendering: a template, not a manifest\napiVersion: v1\nkind: {{ .Kind }}\nmetadata: [\n"),
		"d/sub/f.yml": f(obj("f")),
	}
	got, err := Directory(fsys, "d", true, "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := "---\n# Source: a.yaml\n" + obj("a") + "---\n# Source: sub/f.yml\n" + obj("f")
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
