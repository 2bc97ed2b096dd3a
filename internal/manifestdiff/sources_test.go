package manifestdiff

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// auditApp is a multi-source Application: a repository chart whose value
// files come from this repository through a `$cfg` ref, one of them
// missing but optional, plus valuesObject and a parameter that must win
// over the files, as in Argo CD.
const auditApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ledger-audit-prod, namespace: argocd}
spec:
  project: ledger-prod
  sources:
  - repoURL: http://127.0.0.1:8879
    chart: ledger-api
    targetRevision: 1.3.0
    helm:
      releaseName: audit
      ignoreMissingValueFiles: true
      valueFiles: [$cfg/versions/prod.yaml, $cfg/envs/prod/common.yaml, $cfg/envs/prod/audit/values.yaml, $cfg/envs/prod/audit/absent.yaml]
      valuesObject: {api: {database: {host: audit-db.internal}}}
      parameters: [{name: api.nodeId, value: "007", forceString: true}]
  - repoURL: https://gitlab.example.com/platform/ledger-fleet.git
    targetRevision: main
    ref: cfg
  destination: {server: https://kubernetes.default.svc, namespace: ledger-audit}
`

func TestMultiSourceValueRefs(t *testing.T) {
	base := exampleFleet(t)
	withApp := derive(t, base).
		write("argocd/prod/app-audit.yaml", auditApp).
		write("envs/prod/audit/values.yaml", "api: {logLevel: debug}\n")

	// Added: the whole Deployment shows, built from every value source.
	rep, _, err := run(t, base, withApp.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	added := findApp(t, rep, "prod", "ledger-audit-prod")
	var dep string
	for _, r := range added.Resources {
		if r.Kind == "Deployment" {
			dep = r.Diff
			if r.Name != "audit" || r.Namespace != "ledger-audit" {
				t.Errorf("Deployment %s/%s, want ledger-audit/audit (releaseName, destination)", r.Namespace, r.Name)
			}
		}
	}
	for _, want := range []string{"+              value: \"007\"", "+              value: debug", "+              value: audit-db.internal",
		"+          image: registry.example.com/ledger/api:v3.1.0"} {
		if !strings.Contains(dep, want) {
			t.Errorf("added Deployment lacks %q:\n%s", want, dep)
		}
	}

	// Changed: a file reached only through $cfg is an input.
	edited := derive(t, withApp.m).edit("envs/prod/audit/values.yaml", "logLevel: debug", "logLevel: error")
	rep, f, err := run(t, withApp.m, edited.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"prod/ledger-audit-prod": "changed"}, statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"ledger-api@1.3.0": 2}, f.counts()); diff != "" { // base and head: ledger-api generates nothing
		t.Errorf("fetches (-want +got):\n%s", diff)
	}
	for _, r := range findApp(t, rep, "prod", "ledger-audit-prod").Resources {
		wantChanged := r.Kind == "Deployment"
		if (r.Status == "changed") != wantChanged ||
			wantChanged && !strings.Contains(r.Diff, "-              value: debug\n+              value: error\n") {
			t.Errorf("%s %s:\n%s\nwant only the Deployment's LOG_LEVEL changed", r.Kind, r.Status, r.Diff)
		}
	}

	// A ref to another repository cannot be read offline: error, naming it.
	other := derive(t, withApp.m).edit("argocd/prod/app-audit.yaml",
		"repoURL: https://gitlab.example.com/platform/ledger-fleet.git", "repoURL: https://gitlab.example.com/platform/secrets.git")
	rep, _, err = run(t, withApp.m, other.m, 0)
	if a := findApp(t, rep, "prod", "ledger-audit-prod"); err == nil || a.Status != report.StatusError ||
		!strings.Contains(a.Error, "https://gitlab.example.com/platform/secrets.git") || !strings.Contains(a.Error, "env prod") {
		t.Errorf("Run error %v; app %s %q: want error naming the other repository", err, a.Status, a.Error)
	} else {
		t.Logf("error: %s", a.Error)
	}
}

// The app-of-apps' directory source renders the Argo CD manifests, so a
// sync policy edit changes it and nothing else (the gateway app's render
// inputs exclude syncPolicy); a kustomize source of this repository is
// built, its resources in the app's destination namespace.
func TestDirectoryAndKustomizeSources(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).
		edit("argocd/qa/app-gateway.yaml", "automated: {prune: true, selfHeal: true}", "automated: {prune: false}").
		write("envs/qa/overlay/kustomization.yaml", "resources: [cm.yaml]\n").
		write("envs/qa/overlay/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: overlay}\n").
		write("argocd/qa/app-overlay.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ledger-overlay-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/overlay}
  destination: {server: https://kubernetes.default.svc, namespace: ledger-overlay}
`)
	rep, f, err := run(t, base, head.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{}, f.counts()); diff != "" {
		t.Errorf("fetches (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"qa/ledger-root-qa": "changed", "qa/ledger-overlay-qa": "added"},
		statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	var got []string
	for _, r := range findApp(t, rep, "qa", "ledger-root-qa").Resources {
		got = append(got, string(r.Status)+" "+r.Kind+" "+r.Namespace+"/"+r.Name)
	}
	want := []string{
		"added Application argocd/ledger-overlay-qa",
		"changed Application argocd/ledger-gateway-qa",
		"unchanged ApplicationSet argocd/ledger-api-qa",
		"unchanged ApplicationSet argocd/ledger-worker-qa",
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("app-of-apps resources (-want +got):\n%s", diff)
	}
	k := findApp(t, rep, "qa", "ledger-overlay-qa")
	if cm := resource(t, k, "ConfigMap"); k.NotRendered != "" || len(k.Resources) != 1 ||
		cm.Name != "overlay" || cm.Namespace != "ledger-overlay" || cm.Status != "added" {
		t.Errorf("kustomize app: notRendered %q, resources %+v", k.NotRendered, k.Resources)
	}
}

// Progress counts every app rendered once, up to the total, after
// Rendering said once that the renders begin.
func TestProgress(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).edit("envs/qa/common.yaml", "queue: ledger-qa", "queue: ledger-qa-2")
	cfg, err := config.Parse(base[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls [][2]int
	rendering := 0
	d := &Diff{Config: cfg, Charts: newFetcher(), Base: Side{Name: "b", FS: base}, Head: Side{Name: "h", FS: head.m},
		Progress: func(done, total int) {
			mu.Lock()
			if rendering != 1 {
				t.Errorf("app %d rendered with Rendering called %d times before", done, rendering)
			}
			calls = append(calls, [2]int{done, total})
			mu.Unlock()
		},
		Rendering: func() { rendering++ }}
	if _, err := d.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rendering != 1 {
		t.Errorf("Rendering called %d times, want once", rendering)
	}
	// Six qa node apps read common.yaml.
	var want [][2]int
	for i := 1; i <= 6; i++ {
		want = append(want, [2]int{i, 6})
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("progress calls (-want +got):\n%s", diff)
	}
}

// toolApp renders a chart kept in this repository with two
// helm.fileParameters: one chart-relative, one from the repository root.
const toolApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: tool-prod, namespace: argocd}
spec:
  project: ledger-prod
  source:
    repoURL: https://gitlab.example.com/platform/ledger-fleet.git
    targetRevision: main
    path: charts/tool
    helm:
      parameters: [{name: config, value: from-parameter}]
      fileParameters:
      - {name: config, path: files/app.conf}
      - {name: banner, path: /envs/prod/tool/banner.txt}
  destination: {server: https://kubernetes.default.svc, namespace: tool}
`

// helm.fileParameters set values from files (--set-file, after --set), and
// those files are render inputs: editing one changes the app.
func TestHelmFileParameters(t *testing.T) {
	base := exampleFleet(t)
	withApp := derive(t, base).
		write("charts/tool/Chart.yaml", "apiVersion: v2\nname: tool\nversion: 0.1.0\n").
		write("charts/tool/values.yaml", "config: default\nbanner: none\n").
		write("charts/tool/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tool}\n"+
			"data:\n  app.conf: {{ .Values.config | quote }}\n  banner: {{ .Values.banner | quote }}\n").
		write("charts/tool/files/app.conf", "listen: 8080, 8443\n").
		write("envs/prod/tool/banner.txt", "hello").
		write("argocd/prod/app-tool.yaml", toolApp)
	rep, _, err := run(t, base, withApp.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	cm := resource(t, findApp(t, rep, "prod", "tool-prod"), "ConfigMap")
	// The file wins over the parameter of the same name, comma and all.
	for _, want := range []string{"+  app.conf: |\n+    listen: 8080, 8443\n", "+  banner: hello\n"} {
		if !strings.Contains(cm.Diff, want) {
			t.Errorf("added ConfigMap lacks %q:\n%s", want, cm.Diff)
		}
	}

	edited := derive(t, withApp.m).edit("envs/prod/tool/banner.txt", "hello", "goodbye")
	rep, _, err = run(t, withApp.m, edited.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"prod/tool-prod": "changed"}, statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	if cm := resource(t, findApp(t, rep, "prod", "tool-prod"), "ConfigMap"); !strings.Contains(cm.Diff, "-  banner: hello\n+  banner: goodbye\n") {
		t.Errorf("ConfigMap diff:\n%s", cm.Diff)
	}

	// A missing file is an error naming it, as helm --set-file fails.
	missing := derive(t, withApp.m).edit("argocd/prod/app-tool.yaml", "files/app.conf", "files/absent.conf")
	rep, _, err = run(t, withApp.m, missing.m, 0)
	if a := findApp(t, rep, "prod", "tool-prod"); err == nil || a.Status != report.StatusError ||
		!strings.Contains(a.Error, "charts/tool/files/absent.conf") || !strings.Contains(a.Error, "file parameter config") {
		t.Errorf("Run error %v; app %s %q: want an error naming the missing file", err, a.Status, a.Error)
	}
}

func resource(t *testing.T, a report.App, kind string) diff.ResourceDiff {
	t.Helper()
	for _, r := range a.Resources {
		if r.Kind == kind {
			return r
		}
	}
	t.Fatalf("app %s has no %s; resources: %+v", a.Name, kind, a.Resources)
	return diff.ResourceDiff{}
}

// A kustomize source that cannot be built offline is reported as not
// rendered with the reason, never as an empty render; one with kustomize
// options (applied as Argo CD's kustomize edit commands) and a jsonnet
// directory source (extVars, tlas, libs) render like any other source.
func TestKustomizeOptionsAndJsonnetSources(t *testing.T) {
	app := func(name, source string) string {
		return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ` + name + `, namespace: argocd}
spec:
  project: ledger-qa
  source: ` + source + `
  destination: {server: https://kubernetes.default.svc, namespace: k}
`
	}
	const repo = "{repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, "
	base := exampleFleet(t)
	head := derive(t, base).
		write("envs/qa/remote/kustomization.yaml", "resources: ['https://github.com/org/repo//deploy?ref=v1']\n").
		write("envs/qa/opts/kustomization.yaml", "resources: [cm.yaml]\n").
		write("envs/qa/opts/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: opts}\n").
		write("envs/qa/jsonnet/main.jsonnet", "local l = import 'labels.libsonnet';\n"+
			"function(n) [{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: std.extVar('name'), labels: l}, data: {n: std.toString(n)}}]\n").
		write("lib/jsonnet/labels.libsonnet", "{team: 'ledger'}\n").
		write("argocd/qa/app-remote.yaml", app("k-remote-qa", repo+"path: envs/qa/remote}")).
		write("argocd/qa/app-opts.yaml", app("k-opts-qa", repo+"path: envs/qa/opts, kustomize: {namePrefix: x-, commonLabels: {env: $ARGOCD_APP_NAME}}}")).
		write("argocd/qa/app-jsonnet.yaml", app("j-qa", repo+"path: envs/qa/jsonnet, directory: {jsonnet: "+
			"{extVars: [{name: name, value: from-$ARGOCD_APP_NAME}], tlas: [{name: n, value: '2', code: true}], libs: [lib/jsonnet]}}}"))
	rep, _, err := run(t, base, head.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a := findApp(t, rep, "qa", "k-remote-qa"); a.NotRendered != "kustomize source envs/qa/remote not rendered: envs/qa/remote/kustomization.yaml: remote base https://github.com/org/repo//deploy?ref=v1: cannot be rendered offline" ||
		len(a.Resources) != 0 || a.Status == "error" {
		t.Errorf("k-remote-qa: status %s, notRendered %q, %d resources", a.Status, a.NotRendered, len(a.Resources))
	}
	for name, want := range map[string]string{"k-opts-qa": "k/x-opts", "j-qa": "k/from-j-qa"} {
		a := findApp(t, rep, "qa", name)
		if a.NotRendered != "" || a.Status != "added" || len(a.Resources) != 1 {
			t.Fatalf("%s: status %s, notRendered %q, resources %+v", name, a.Status, a.NotRendered, a.Resources)
		}
		r := resource(t, a, "ConfigMap")
		if got := r.Namespace + "/" + r.Name; got != want {
			t.Errorf("%s: ConfigMap %s, want %s", name, got, want)
		}
	}
	if r := resource(t, findApp(t, rep, "qa", "k-opts-qa"), "ConfigMap"); !strings.Contains(r.Diff, "env: k-opts-qa") {
		t.Errorf("k-opts-qa: the substituted common label did not reach the render:\n%s", r.Diff)
	}
	if r := resource(t, findApp(t, rep, "qa", "j-qa"), "ConfigMap"); !strings.Contains(r.Diff, "team: ledger") || !strings.Contains(r.Diff, `"n": "2"`) {
		t.Errorf("j-qa: the libs and tlas did not reach the render:\n%s", r.Diff)
	}
}

// An in-repo umbrella chart whose dependency is not packaged in charts/
// renders after the dependency is built as Argo CD's `helm dependency
// build` builds it, the chart fetched through the chart source.
func TestInRepoChartDependencies(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).
		write("charts/umbrella/Chart.yaml", "apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n"+
			"- {name: ledger-worker, version: 0.9.1, repository: 'https://charts.example.com', alias: worker-a}\n").
		write("charts/umbrella/values.yaml", "worker-a:\n  ledger-node: {worker: {replicas: 3, imageTag: v9}}\n  worker: {queue: q, shard: 1}\n").
		write("argocd/qa/app-umbrella.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: umbrella-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: charts/umbrella}
  destination: {server: https://kubernetes.default.svc, namespace: umbrella}
`)
	rep, f, err := run(t, base, head.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.counts()["ledger-worker@0.9.1"] == 0 {
		t.Errorf("the dependency was never fetched: %v", f.counts())
	}
	a := findApp(t, rep, "qa", "umbrella-qa")
	if a.Status != "added" || a.NotRendered != "" {
		t.Fatalf("status %s, notRendered %q, error %q", a.Status, a.NotRendered, a.Error)
	}
	if d := resource(t, a, "Deployment"); d.Name != "umbrella-qa" || !strings.Contains(d.Diff, "replicas: 3") {
		t.Errorf("the aliased dependency did not render with the umbrella's values: %s\n%s", d.Name, d.Diff)
	}
}
