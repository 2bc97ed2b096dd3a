//go:build bundled

package render

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

// optionsTree is a repository with an overlay (apps/prod) on a base, a
// StatefulSet with volume claim templates (where kustomize's label rules
// changed between releases), existing images, replicas, labels and
// patches to merge with, and components.
func optionsTree() fstest.MapFS {
	return fstest.MapFS{
		"apps/base/kustomization.yaml": {Data: []byte("resources: [deployment.yaml, statefulset.yaml, service.yaml]\n")},
		"apps/base/deployment.yaml": {Data: []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: nginx:1.0}
      - {name: sidecar, image: 'registry.example.com/tools/envoy@sha256:aaaa'}
      initContainers: [{name: init, image: busybox}]
`)},
		"apps/base/statefulset.yaml": {Data: []byte(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:15}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`)},
		"apps/base/service.yaml": {Data: []byte("apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n")},
		"apps/prod/kustomization.yaml": {Data: []byte(`# the prod overlay
resources: [../base]
commonLabels: {team: ledger}
commonAnnotations: {owner: ledger}
labels:
- pairs: {tier: backend}
  includeTemplates: true
images:
- {name: busybox, newTag: "1.36"}
- {name: postgres, newTag: "16", tagSuffix: -alpine}
replicas: [{name: db, count: 2}]
patches:
- path: patch.yaml
`)},
		"apps/prod/patch.yaml":                          {Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n")},
		"apps/prod/extra-patch.yaml":                    {Data: []byte("- {op: add, path: /metadata/annotations/extra, value: 'yes'}\n")},
		"apps/components/monitoring/kustomization.yaml": {Data: []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations: {monitoring: 'on'}\n")},
		"apps/components/debug/kustomization.yaml":      {Data: []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [cm.yaml]\n")},
		"apps/components/debug/cm.yaml":                 {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: debug}\ndata: {level: trace}\n")},
		"apps/plain/kustomization.yml":                  {Data: []byte("resources: [../base]\n")},
		"apps/legacy/kustomization.yaml": {Data: []byte("bases: [../base]\npatchesStrategicMerge: [patch.yaml]\n" +
			"imageTags: [{name: nginx, newTag: '1.9'}]\nconfigMapGenerator: [{name: env, env: app.env}]\n")},
		"apps/legacy/patch.yaml": {Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 5}\n")},
		"apps/legacy/app.env":    {Data: []byte("A=1\n")},
	}
}

type kustomizeCase struct {
	name, dir, opts string
	wantErr         bool // both must fail
}

var kustomizeCases = []kustomizeCase{
	{"name prefix and suffix", "apps/prod", "{namePrefix: prod-, nameSuffix: -v2}", false},
	{"prefix starting with a dash", "apps/prod", "{namePrefix: -x-}", false},
	{"images in every form", "apps/prod", `{images: [nginx:1.25, "busybox=registry.example.com/busybox:1.37@sha256:bbbb",
	  "registry.example.com/tools/envoy=envoy@sha256:cccc", "postgres=*:17"]}`, false},
	{"image with a preserved part", "apps/prod", `{images: ["busybox=mirror.example.com/busybox:*"]}`, false},
	{"bare image name is refused", "apps/prod", "{images: [nginx]}", true},
	{"replicas merge and sort", "apps/prod", `{replicas: [{name: web, count: 4}, {name: db, count: "5"}]}`, false},
	{"replicas with a bad count", "apps/prod", `{replicas: [{name: web, count: four}]}`, true},
	{"common labels onto selectors and claim templates", "apps/prod", "{commonLabels: {env: prod, 'app.kubernetes.io/part-of': ledger}}", false},
	{"existing common label without force", "apps/prod", "{commonLabels: {team: other}}", true},
	{"existing common label forced", "apps/prod", "{commonLabels: {team: other}, forceCommonLabels: true}", false},
	{"labels without selector", "apps/prod", "{commonLabels: {env: prod}, labelWithoutSelector: true}", false},
	{"labels without selector into templates", "apps/prod", "{commonLabels: {env: prod, tier: api}, labelWithoutSelector: true, labelIncludeTemplates: true, forceCommonLabels: true}", false},
	{"include templates needs without selector", "apps/prod", "{commonLabels: {env: prod}, labelIncludeTemplates: true}", true},
	{"quoted label value", "apps/prod", `{commonLabels: {env: '"prod"'}}`, false},
	{"annotations", "apps/prod", "{commonAnnotations: {'example.com/url': 'https://x:8080/a', note: 'a: b'}}", false},
	{"existing annotation without force", "apps/prod", "{commonAnnotations: {owner: other}}", true},
	{"existing annotation forced", "apps/prod", "{commonAnnotations: {owner: other}, forceCommonAnnotations: true}", false},
	{"namespace", "apps/prod", "{namespace: ledger-prod}", false},
	{"patches appended", "apps/prod", `{patches: [
	  {target: {kind: Deployment, name: web}, patch: '[{"op": "replace", "path": "/spec/replicas", "value": 7}]'},
	  {path: extra-patch.yaml, target: {group: apps, version: v1, kind: StatefulSet, labelSelector: ''}},
	  {patch: "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {type: NodePort}\n"},
	  {target: {kind: Service}, patch: '[{"op": "replace", "path": "/metadata/name", "value": "web2"}]', options: {allowNameChange: true}}]}`, false},
	{"patches on a kustomization without any", "apps/plain", `{patches: [{target: {kind: Deployment}, patch: '[{"op": "add", "path": "/metadata/labels/p", "value": "1"}]'}]}`, false},
	{"components", "apps/prod", "{components: [../components/monitoring, ../components/debug]}", false},
	{"component glob", "apps/prod", "{components: ['../components/*']}", false},
	{"missing component", "apps/prod", "{components: [../components/nope]}", true},
	{"missing component ignored", "apps/prod", "{components: [../components/nope, ../components/debug], ignoreMissingComponents: true}", false},
	{"only missing components ignored", "apps/prod", "{components: [../components/nope], ignoreMissingComponents: true}", false},
	{"everything at once", "apps/prod", `{namePrefix: p-, nameSuffix: -s, images: ["nginx=nginx:1.27"], replicas: [{name: web, count: 2}],
	  commonLabels: {env: prod}, commonAnnotations: {owner: x}, forceCommonAnnotations: true, namespace: ns1,
	  patches: [{target: {kind: ConfigMap}, patch: '[{"op": "add", "path": "/data/extra", "value": "1"}]'}],
	  components: [../components/debug], version: v5.8.3, kubeVersion: 1.30.0, apiVersions: [v1]}`, false},
	{"edits on a kustomization.yml", "apps/plain", "{namePrefix: plain-, images: ['localhost:5000/busybox=localhost:5000/mirror/busybox:2.0']}", false},
	{"edits on deprecated fields", "apps/legacy", `{nameSuffix: -old, images: ["busybox:1.2"], commonLabels: {l: x}, namespace: legacy}`, false},
	{"options that change no file", "apps/prod", "{version: v5.8.3, kubeVersion: 1.30.0, ignoreMissingComponents: true}", false},
}

// TestKustomizeOptionsParity drives the real kustomize binary exactly as
// Argo CD's util/kustomize does (edit commands in a copy of the source,
// then `kustomize build <path>` from the repository root) and requires
// our in-process build to print the same bytes, or both to fail.
func TestKustomizeOptionsParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real kustomize binary")
	}
	bin := toolbin.Path(t, toolbin.Kustomize)
	tree := optionsTree()
	for _, tc := range kustomizeCases {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := argo.ParseKustomizeOptions([]byte(tc.opts))
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := kustomizeLikeArgo(t, bin, tree, tc.dir, opts)
			got, gotErr := KustomizeWithOptions(tree, tc.dir, opts)
			if (wantErr != nil) != tc.wantErr || (gotErr != nil) != tc.wantErr {
				t.Fatalf("kustomize CLI error = %v\nours = %v\nwant an error: %v", wantErr, gotErr, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if len(bytes.TrimSpace(got)) == 0 {
				t.Fatal("empty output")
			}
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("differs from kustomize edit + build (-cli +ours):\n%s", d)
			}
		})
	}
	if _, err := fs.Stat(tree, "apps/prod/kustomization.yaml"); err != nil || !bytes.HasPrefix(tree["apps/prod/kustomization.yaml"].Data, []byte("# the prod overlay")) {
		t.Error("the tree was modified")
	}
}

// kustomizeLikeArgo copies tree to disk and runs what Argo CD's
// kustomize.Build runs for opts.
func kustomizeLikeArgo(t *testing.T, bin string, tree fstest.MapFS, dir string, o *argo.KustomizeOptions) ([]byte, error) {
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
	app := filepath.Join(root, filepath.FromSlash(dir))
	run := func(cwd string, args ...string) ([]byte, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = cwd
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("kustomize %s: %v: %s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.Bytes(), nil
	}
	for _, args := range argoEditCommands(t, root, app, o) {
		if args[0] == "patches" {
			if err := argoAppendPatches(app, o.Patches); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := run(app, args...); err != nil {
			return nil, err
		}
	}
	return run(root, "build", app)
}

// argoEditCommands lists Argo CD's edit commands in its order; "patches"
// marks where it rewrites kustomization.yaml itself.
func argoEditCommands(t *testing.T, root, app string, o *argo.KustomizeOptions) [][]string {
	var cmds [][]string
	if o.NamePrefix != "" {
		cmds = append(cmds, []string{"edit", "set", "nameprefix", "--", o.NamePrefix})
	}
	if o.NameSuffix != "" {
		cmds = append(cmds, []string{"edit", "set", "namesuffix", "--", o.NameSuffix})
	}
	if len(o.Images) > 0 {
		cmds = append(cmds, append([]string{"edit", "set", "image"}, o.Images...))
	}
	if len(o.Replicas) > 0 {
		args := []string{"edit", "set", "replicas"}
		for _, r := range o.Replicas {
			args = append(args, r.Name+"="+r.Count) // a bad count fails in the CLI too
		}
		cmds = append(cmds, args)
	}
	if len(o.CommonLabels) > 0 {
		args := []string{"edit", "add", "label"}
		for flag, on := range map[string]bool{"--force": o.ForceCommonLabels, "--without-selector": o.LabelWithoutSelector, "--include-templates": o.LabelIncludeTemplates} {
			if on {
				args = append(args, flag)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(o.CommonLabels)) {
			args = append(args, k+":"+o.CommonLabels[k])
		}
		cmds = append(cmds, args)
	}
	if len(o.CommonAnnotations) > 0 {
		args := []string{"edit", "add", "annotation"}
		if o.ForceCommonAnnotations {
			args = append(args, "--force")
		}
		for _, k := range slices.Sorted(maps.Keys(o.CommonAnnotations)) {
			args = append(args, k+":"+o.CommonAnnotations[k])
		}
		cmds = append(cmds, args)
	}
	if o.Namespace != "" {
		cmds = append(cmds, []string{"edit", "set", "namespace", "--", o.Namespace})
	}
	if len(o.Patches) > 0 {
		cmds = append(cmds, []string{"patches"})
	}
	comps := o.Components
	if o.IgnoreMissingComponents {
		comps = nil
		for _, c := range o.Components {
			if _, err := os.Stat(filepath.Join(app, c)); err == nil {
				comps = append(comps, c)
			}
		}
	}
	if len(comps) > 0 {
		cmds = append(cmds, append([]string{"edit", "add", "component"}, comps...))
	}
	return cmds
}

// argoAppendPatches is the repo-server's own rewrite of the
// kustomization: decoded into a generic map, patches appended, encoded.
func argoAppendPatches(app string, patches []argo.KustomizePatch) error {
	for _, name := range kustomizationNames {
		p := filepath.Join(app, name)
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return err
		}
		list, _ := m["patches"].([]any)
		for _, patch := range patches {
			list = append(list, patch)
		}
		m["patches"] = list
		out, err := yaml.Marshal(m)
		if err != nil {
			return err
		}
		return os.WriteFile(p, out, 0o644)
	}
	return errors.New("kustomization file not found in the path")
}
