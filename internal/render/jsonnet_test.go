package render

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobwas/glob"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-jsonnet"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

func jsonnetTree() fstest.MapFS {
	return fstest.MapFS{
		"apps/web/main.jsonnet": {Data: []byte(`local k = import 'k.libsonnet';
local common = import 'common.libsonnet';
function(replicas=1, tier='web') [
  k.deployment(std.extVar('name'), replicas) + { metadata+: { labels: common.labels + { tier: tier } } },
  null,
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' },
    data: { env: std.extVar('env'), code: std.toString(std.extVar('settings')), ratio: '' + 0.5 } },
]
`)},
		"apps/web/common.libsonnet":        {Data: []byte(`{ labels: { app: 'web' } }`)},
		"apps/web/skipped.jsonnet":         {Data: []byte("// +argocd:skip-file-rendering\nerror 'never evaluated'\n")},
		"apps/web/plain.yaml":              {Data: []byte("apiVersion: v1\nkind: Service\nmetadata: {name: web}\n")},
		"apps/web/z-list.jsonnet":          {Data: []byte(`{ apiVersion: 'v1', kind: 'List', items: [ { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } } ] }`)},
		"apps/web/null-list.jsonnet":       {Data: []byte(`{ apiVersion: 'v1', kind: 'SecretList', items: null }`)},
		"apps/web/sub/nested.jsonnet":      {Data: []byte(`local common = import 'common.libsonnet'; { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'nested', labels: common.labels } }`)},
		"apps/web/sub/ignored.libsonnet":   {Data: []byte(`error 'libsonnet files are never evaluated'`)},
		"apps/web/numbers.jsonnet":         {Data: []byte(`{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', annotations: { n: '' + 1e3 } }, spec: { big: 12345678901, f: 1.25, i: 3 } }`)},
		"lib/k/k.libsonnet":                {Data: []byte(`{ deployment(name, replicas):: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: name }, spec: { replicas: replicas } } }`)},
		"lib/override/k.libsonnet":         {Data: []byte(`{ deployment(name, replicas):: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'override-' + name }, spec: { replicas: replicas * 10 } } }`)},
		"apps/bad/nokind.jsonnet":          {Data: []byte(`{ apiVersion: 'v1', metadata: { name: 'x' } }`)},
		"apps/bad/string.jsonnet":          {Data: []byte(`'just a string'`)},
		"apps/bad/runtime.jsonnet":         {Data: []byte(`{ a: error 'boom' }`)},
		"apps/bad/escape.jsonnet":          {Data: []byte(`import '../../../etc/passwd'`)},
		"apps/bad/mixed-array.jsonnet":     {Data: []byte(`[{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, 'x']`)},
		"apps/bad/bad-apiversion.jsonnet":  {Data: []byte(`{ apiVersion: 'a/b/c', kind: 'ConfigMap', metadata: { name: 'a' } }`)},
		"apps/extcode/main.jsonnet":        {Data: []byte(`{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: std.extVar('lib').name } }`)},
		"apps/extcode/values.libsonnet":    {Data: []byte(`{ name: 'from-app-path' }`)},
		"apps/extcode/nested/x.libsonnet":  {Data: []byte(`{}`)},
		"apps/this/main.jsonnet":           {Data: []byte(`{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'this' }, data: { file: std.thisFile } }`)},
		"apps/web/sub/deeper/yaml.yml":     {Data: []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: deep}\n")},
		"apps/web/sub/deeper/skip.jsonnet": {Data: []byte(`{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'excluded' } }`)},
	}
}

type jsonnetCase struct {
	name, dir, opts  string
	recurse          bool
	include, exclude string
	wantErr          string
}

var jsonnetCases = []jsonnetCase{
	{name: "ext vars, tlas, libs, arrays, lists", dir: "apps/web", opts: `{extVars: [{name: name, value: web}, {name: env, value: prod}, {name: settings, value: '{a: 1}', code: true}],
	  tlas: [{name: replicas, value: '3', code: true}, {name: tier, value: backend}], libs: [lib/k]}`},
	{name: "the last lib wins", dir: "apps/web", opts: `{extVars: [{name: name, value: web}, {name: env, value: e}, {name: settings, value: 'null', code: true}], libs: [lib/k, /lib/override]}`},
	{name: "recurse with include and exclude", dir: "apps/web", recurse: true, include: "{*.jsonnet,*.yml}", exclude: "*/deeper/skip.jsonnet",
		opts: `{extVars: [{name: name, value: w}, {name: env, value: e}, {name: settings, value: '[]', code: true}], libs: [lib/k]}`},
	{name: "missing ext var", dir: "apps/web", opts: `{libs: [lib/k]}`, wantErr: "Undefined external variable: name"},
	{name: "object without kind", dir: "apps/bad", include: "nokind.jsonnet", wantErr: "'Kind' is missing"},
	{name: "top-level string", dir: "apps/bad", include: "string.jsonnet", wantErr: "cannot unmarshal"},
	{name: "runtime error", dir: "apps/bad", include: "runtime.jsonnet", wantErr: "boom"},
	{name: "import outside the repository", dir: "apps/bad", include: "escape.jsonnet", wantErr: "couldn't open import"},
	{name: "array with a non-object", dir: "apps/bad", include: "mixed-array.jsonnet", wantErr: "cannot unmarshal"},
	{name: "bad apiVersion", dir: "apps/bad", include: "bad-apiversion.jsonnet", wantErr: "'Kind' is missing"},
	{name: "ext code imports through the library paths", dir: "apps/extcode", opts: `{extVars: [{name: lib, value: "import 'values.libsonnet'", code: true}]}`},
	{name: "lib outside the repository", dir: "apps/extcode", opts: `{libs: [../elsewhere]}`, wantErr: "outside repository root"},
}

// TestJsonnetParity renders jsonnet directory sources in process and
// compares the objects with what Argo CD's repo-server produces for them:
// the same go-jsonnet evaluation, run the way its makeJsonnetVM runs it on
// a checkout on disk (FileImporter, absolute paths), and its own way of
// turning the result into objects (unstructured decoding, lists expanded).
func TestJsonnetParity(t *testing.T) {
	tree := jsonnetTree()
	root := writeTree(t, tree)
	for _, tc := range jsonnetCases {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := argo.ParseJsonnetOptions(nilIfEmpty(tc.opts))
			if err != nil {
				t.Fatal(err)
			}
			got, gotErr := DirectoryWithJsonnet(tree, tc.dir, tc.recurse, tc.include, tc.exclude, opts)
			want, wantErr := argoDirectory(t, root, tc)
			if tc.wantErr != "" {
				if gotErr == nil || !strings.Contains(gotErr.Error(), tc.wantErr) || wantErr == nil {
					t.Fatalf("ours: %v\nargo: %v\nwant both to fail with %q", gotErr, wantErr, tc.wantErr)
				}
				if strings.Contains(gotErr.Error(), "\n") || strings.Contains(gotErr.Error(), jsonnetRoot) {
					t.Errorf("error is not one line of repository paths: %q", gotErr)
				}
				return
			}
			if gotErr != nil || wantErr != nil {
				t.Fatalf("ours: %v\nargo: %v", gotErr, wantErr)
			}
			if len(want) == 0 {
				t.Fatal("argo rendered nothing: the case proves nothing")
			}
			if d := cmp.Diff(want, objectsOf(t, got)); d != "" {
				t.Errorf("objects differ from Argo CD's (-argo +ours):\n%s", d)
			}
		})
	}
}

// std.thisFile is where Argo CD and we differ: its checkout path is a
// random directory, ours a fixed root. Only the path within the
// repository is comparable.
func TestJsonnetThisFile(t *testing.T) {
	out, err := DirectoryWithJsonnet(jsonnetTree(), "apps/this", false, "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "file: "+jsonnetRoot+"/apps/this/main.jsonnet") {
		t.Errorf("std.thisFile is not the file's repository path under %s:\n%s", jsonnetRoot, out)
	}
}

func nilIfEmpty(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

func writeTree(t *testing.T, tree fstest.MapFS) string {
	t.Helper()
	root := t.TempDir()
	for name, f := range tree {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// argoDirectory follows Argo CD's findManifests for the files of tc that
// this test tree has: the walk, the globs, a VM per .jsonnet file, YAML
// files decoded per document; then GenerateManifests' list expansion and
// JSON encoding of each object.
func argoDirectory(t *testing.T, root string, tc jsonnetCase) ([]any, error) {
	opts, _ := argo.ParseJsonnetOptions(nilIfEmpty(tc.opts))
	app := filepath.Join(root, tc.dir)
	var objs []*unstructured.Unstructured
	err := filepath.Walk(app, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			if p != app && !tc.recurse {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(app, p)
		if !regexp.MustCompile(`^.*\.(yaml|yml|json|jsonnet)$`).MatchString(info.Name()) ||
			(tc.exclude != "" && glob.MustCompile(tc.exclude).Match(rel)) ||
			(tc.include != "" && !glob.MustCompile(tc.include).Match(rel)) {
			return nil
		}
		if data, _ := os.ReadFile(p); strings.Contains(string(data), "+argocd:skip-file-rendering") {
			return nil
		}
		if !strings.HasSuffix(p, ".jsonnet") {
			data, _ := os.ReadFile(p)
			var u unstructured.Unstructured
			if err := yaml.Unmarshal(data, &u.Object); err != nil {
				return err
			}
			objs = append(objs, &u)
			return nil
		}
		vm := jsonnet.MakeVM()
		jpaths := []string{app}
		if opts != nil {
			for _, v := range opts.TLAs {
				if v.Code {
					vm.TLACode(v.Name, v.Value)
				} else {
					vm.TLAVar(v.Name, v.Value)
				}
			}
			for _, v := range opts.ExtVars {
				if v.Code {
					vm.ExtCode(v.Name, v.Value)
				} else {
					vm.ExtVar(v.Name, v.Value)
				}
			}
			for _, l := range opts.Libs {
				jp := filepath.Join(root, l)
				if !strings.HasPrefix(jp, root+"/") {
					return fmt.Errorf("file '%s' resolved to outside repository root", l)
				}
				jpaths = append(jpaths, jp)
			}
		}
		vm.Importer(&jsonnet.FileImporter{JPaths: jpaths})
		out, err := vm.EvaluateFile(p)
		if err != nil {
			return err
		}
		var arr []*unstructured.Unstructured
		if err := json.Unmarshal([]byte(out), &arr); err == nil {
			objs = append(objs, arr...)
			return nil
		}
		var obj unstructured.Unstructured
		if err := json.Unmarshal([]byte(out), &obj); err != nil {
			return err
		}
		objs = append(objs, &obj)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var res []any
	for _, o := range objs {
		if o == nil {
			continue
		}
		targets := []*unstructured.Unstructured{o}
		if o.IsList() {
			targets = nil
			err := o.EachListItem(func(r runtime.Object) error {
				targets = append(targets, r.(*unstructured.Unstructured))
				return nil
			})
			if err != nil {
				return nil, err
			}
		} else if items, ok := o.Object["items"]; ok && items == nil && o.Object["spec"] == nil && o.Object["status"] == nil {
			continue
		}
		for _, tgt := range targets {
			j, _ := json.Marshal(tgt.Object)
			var v any
			_ = json.Unmarshal(j, &v)
			res = append(res, v)
		}
	}
	return res, nil
}

// objectsOf decodes our YAML stream into JSON-shaped values.
func objectsOf(t *testing.T, stream []byte) []any {
	var out []any
	for _, doc := range strings.Split(string(stream), "\n---\n") {
		doc = strings.TrimPrefix(doc, "---\n")
		var v any
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("decoding %q: %v", doc, err)
		}
		if v != nil {
			j, _ := json.Marshal(v)
			_ = json.Unmarshal(j, &v)
			out = append(out, v)
		}
	}
	return out
}
