package manifestdiff

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

const missingPathApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ledger-missing-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/nope}
  destination: {server: https://kubernetes.default.svc, namespace: missing}
`

const escapingApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ledger-escape-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/escape}
  destination: {server: https://kubernetes.default.svc, namespace: escape}
`

const clustersAppSet = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: ledger-clusters-qa, namespace: argocd}
spec:
  generators: [{clusters: {}}]
  template:
    metadata: {name: '{{name}}-guestbook'}
    spec:
      project: default
      source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/gateway}
      destination: {server: '{{server}}', namespace: guestbook}
`

// TestBrokenDocumentsFailOnlyTheirApps: an Application whose path does not
// exist, one whose path is not in the repository either, an
// ApplicationSet whose goTemplate hits missingkey=error and one with a
// generator that needs a cluster each fail only their own apps, with the
// reason; every other app is still rendered and the run reports
// ErrRender with the whole report.
func TestBrokenDocumentsFailOnlyTheirApps(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).
		write("argocd/qa/app-missing.yaml", missingPathApp).
		write("argocd/qa/app-escape.yaml", escapingApp).
		write("argocd/qa/appset-clusters.yaml", clustersAppSet).
		edit("argocd/qa/appset-nodes.yaml", "  goTemplate: true\n", "  goTemplate: true\n  goTemplateOptions: [\"missingkey=error\"]\n").
		edit("argocd/qa/appset-nodes.yaml", "'ledger-{{.path.basename}}-worker-qa'", "'ledger-{{.path.nodeName}}-worker-qa'").
		edit("envs/qa/gateway/values.yaml", "replicas: 1", "replicas: 3")
	// No symlink leaving the repository here: Argo CD's rule fails every
	// app of such a repository (argo.TestOutOfBoundsSymlinks), so the
	// escaping app's path is simply absent.
	headFS := gitTree(t, head.m, nil)
	rep, _, err := runFS(t, base, headFS)
	if !errors.Is(err, ErrRender) {
		t.Fatalf("err = %v, want ErrRender", err)
	}
	want := map[string]string{
		"qa/ledger-gateway-qa":       "changed",
		"qa/ledger-root-qa":          "changed",
		"qa/ledger-missing-qa":       "error",
		"qa/ledger-escape-qa":        "error",
		"qa/ledger-clusters-qa":      "error",
		"qa/ledger-node-a-worker-qa": "error",
		"qa/ledger-node-b-worker-qa": "error",
		"qa/ledger-node-c-worker-qa": "error",
	}
	if diff := cmp.Diff(want, statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	reasons := map[string][]string{
		"ledger-missing-qa":       {"argocd/qa/app-missing.yaml:1", `path "envs/qa/nope" does not exist`},
		"ledger-escape-qa":        {"argocd/qa/app-escape.yaml:1", `path "envs/qa/escape" does not exist`},
		"ledger-clusters-qa":      {"argocd/qa/appset-clusters.yaml:1", "clusters generator is not supported offline"},
		"ledger-node-b-worker-qa": {"argocd/qa/appset-nodes.yaml", "applicationset ledger-worker-qa", `map has no entry for key "nodeName"`, "(at head)"},
	}
	for name, parts := range reasons {
		a := findApp(t, rep, "qa", name)
		for _, p := range parts {
			if !strings.Contains(a.Error, p) {
				t.Errorf("%s: error %q lacks %q", name, a.Error, p)
			}
		}
	}
	// The api ApplicationSet of the same file still renders.
	if a := findApp(t, rep, "qa", "ledger-node-a-api-qa"); a.Status != report.StatusUnchanged {
		t.Errorf("ledger-node-a-api-qa: %s %s", a.Status, a.Error)
	}
}

// gitTree commits files (and symlinks: path -> target) to a real git
// repository and returns the commit's tree, where a symlink leaving the
// repository is not followed.
func gitTree(t *testing.T, files fstest.MapFS, links map[string]string) fs.FS {
	t.Helper()
	dir := t.TempDir()
	for name, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range links {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "head"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo, err := git.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := repo.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := repo.TreeFS(h)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// runFS is run over any two trees.
func runFS(t *testing.T, base, head fs.FS) (report.Report, *fetcher, error) {
	t.Helper()
	data, err := fs.ReadFile(head, config.FileName)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	f := newFetcher()
	d := &Diff{Config: cfg, Charts: f,
		Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: head}}
	rep, err := d.Run(context.Background())
	return rep, f, err
}

// TestUnparsableFileAndDuplicateNameFailOnlyTheirApps: a manifest file
// that does not parse is one error entry naming the file and line (its
// apps are unknowable), the apps it held at the other revision fail
// with it rather than show as removed, and a name two documents
// generate fails that name only; every other app of the env is still
// rendered.
func TestUnparsableFileAndDuplicateNameFailOnlyTheirApps(t *testing.T) {
	base := exampleFleet(t)
	dup := strings.Replace(missingPathApp, "ledger-missing-qa", "ledger-node-a-api-qa", 1)
	dup = strings.Replace(dup, "envs/qa/nope", "envs/qa/gateway", 1)
	head := derive(t, base).
		write("argocd/qa/app-broken.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: [unclosed\n").
		edit("argocd/qa/app-gateway.yaml", "  project: ledger-qa\n", "  project: ledger-qa\n   bad: indent\n").
		write("argocd/qa/app-dup.yaml", dup).
		edit("envs/qa/nodes/node-c/values-api.yaml", "nodeId: c", "nodeId: c2")
	rep, f, err := run(t, base, head.m, 2)
	if !errors.Is(err, ErrRender) {
		t.Fatalf("err = %v, want ErrRender", err)
	}
	want := map[string]string{
		"qa/argocd/qa/app-broken.yaml":  "error",
		"qa/argocd/qa/app-gateway.yaml": "error",
		"qa/ledger-gateway-qa":          "error", // in the broken file at head
		"qa/ledger-node-a-api-qa":       "error", // two documents, one name
		"qa/ledger-root-qa":             "error", // the app of apps renders the broken files
		"qa/ledger-node-c-api-qa":       "changed",
	}
	if diff := cmp.Diff(want, statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	reasons := map[string][]string{
		"argocd/qa/app-broken.yaml":  {"env qa: argocd/qa/app-broken.yaml:2: did not find expected", "(at head)"},
		"argocd/qa/app-gateway.yaml": {"argocd/qa/app-gateway.yaml:10: "},
		"ledger-gateway-qa":          {"argocd/qa/app-gateway.yaml:10: ", "(at head)"},
		"ledger-node-a-api-qa":       {"argocd/qa/appset-nodes.yaml:15: app ledger-node-a-api-qa: name already used by argocd/qa/app-dup.yaml:1"},
	}
	for name, parts := range reasons {
		a := findApp(t, rep, "qa", name)
		for _, p := range parts {
			if !strings.Contains(a.Error, p) {
				t.Errorf("%s: error %q lacks %q", name, a.Error, p)
			}
		}
	}
	if f.counts()["ledger-api@1.4.0"] == 0 {
		t.Error("no ledger-api render: the other apps were not rendered")
	}
}

// TestDuplicateKeyFailsItsApp: an Application that repeats a key (here
// the targetRevision a promotion edits) fails with file:line of both
// occurrences, whichever side has it: Argo CD would apply the last value
// silently while promote edits the first, so its render would be a
// guess. Every other app of the env is still rendered. The app-of-apps
// renders the file as Argo CD does, with the last value, and warns.
func TestDuplicateKeyFailsItsApp(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).
		edit("argocd/qa/app-gateway.yaml", "      targetRevision: '2.1.0'   # promote keeps this in step with versions/qa.yaml\n",
			"      targetRevision: '2.1.0'   # promote keeps this in step with versions/qa.yaml\n      targetRevision: '2.0.0'\n").
		edit("envs/qa/gateway/values.yaml", "replicas: 1", "replicas: 3")
	rep, _, err := run(t, base, head.m, 2)
	if !errors.Is(err, ErrRender) {
		t.Fatalf("err = %v, want ErrRender", err)
	}
	a := findApp(t, rep, "qa", "ledger-gateway-qa")
	want := `argocd/qa/app-gateway.yaml:14: key "targetRevision" is already defined at line 13`
	if a.Status != report.StatusError || !strings.Contains(a.Error, want) || !strings.Contains(a.Error, "(at head)") {
		t.Errorf("gateway: %s %q, want error %q", a.Status, a.Error, want)
	}
	// The app-of-apps renders that file as a directory source, as Argo
	// CD's repo server does: the last value, and a warning naming both
	// lines; nothing else changes.
	if a := findApp(t, rep, "qa", "ledger-root-qa"); a.Status != report.StatusChanged {
		t.Errorf("root: %s %q, want changed", a.Status, a.Error)
	}
	if st := statuses(rep, report.StatusUnchanged); len(st) != 2 {
		t.Errorf("only the gateway and the root should be listed, got %v", st)
	}
	var repeat []string
	for _, f := range rep.Findings {
		if f.Rule == "schema-duplicate-field" {
			repeat = append(repeat, f.Severity+" "+f.App+" "+f.Message)
		}
	}
	want = "warning ledger-root-qa field spec.sources[0].targetRevision is given more than once (twice in app-gateway.yaml; Argo CD applies the last)"
	if len(repeat) != 1 || repeat[0] != want {
		t.Errorf("findings %q, want [%q]", repeat, want)
	}
}

// TestPanickingRendererFailsOnlyItsApp: Helm 4.3.1 panics on an
// apiVersion v3 chart that aliases one subchart twice, and go-jsonnet
// crashes on std.removeAt past the end; each is its own app's one-line
// error, and the run still renders and reports every other app.
func TestPanickingRendererFailsOnlyItsApp(t *testing.T) {
	base := exampleFleet(t)
	app := func(name, path string) string {
		return strings.NewReplacer("ledger-missing-qa", name, "envs/qa/nope", path).Replace(missingPathApp)
	}
	head := derive(t, base).
		write("argocd/qa/app-boom.yaml", app("boom-qa", "envs/qa/boom")).
		write("envs/qa/boom/Chart.yaml", "apiVersion: v3\nname: boom\nversion: 0.1.0\ndependencies:\n  - {name: sub, version: 0.1.0, alias: one}\n  - {name: sub, version: 0.1.0, alias: two}\n").
		write("envs/qa/boom/charts/sub/Chart.yaml", "apiVersion: v3\nname: sub\nversion: 0.1.0\n").
		write("envs/qa/boom/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: boom}\n").
		write("argocd/qa/app-crash.yaml", app("crash-qa", "envs/qa/crash")).
		write("envs/qa/crash/main.jsonnet", "[{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x'}, data: {a: std.toString(std.removeAt([1], 5))}}]").
		edit("envs/qa/gateway/values.yaml", "replicas: 1", "replicas: 3")
	rep, f, err := run(t, base, head.m, 2)
	if !errors.Is(err, ErrRender) {
		t.Fatalf("err = %v, want ErrRender", err)
	}
	want := map[string]string{
		"qa/boom-qa":           "error",
		"qa/crash-qa":          "error",
		"qa/ledger-gateway-qa": "changed",
		"qa/ledger-root-qa":    "changed",
	}
	if diff := cmp.Diff(want, statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	for name, w := range map[string]string{
		"boom-qa":  "env qa, app boom-qa, chart envs/qa/boom version main: helm 4 panicked: runtime error: index out of range [1] with length 1 (at helm.sh/helm/v4/",
		"crash-qa": "go-jsonnet panicked: runtime error: slice bounds out of range [:5] with capacity 1 (at github.com/google/go-jsonnet.builtinRemoveAt, builtins.go:",
	} {
		if a := findApp(t, rep, "qa", name); !strings.Contains(a.Error, w) || strings.Contains(a.Error, "goroutine") {
			t.Errorf("%s: error %q, want it to contain %q", name, a.Error, w)
		}
	}
	if f.counts()["edge-gateway@2.1.0"] == 0 {
		t.Error("no edge-gateway render: the other apps were not rendered")
	}
}
