package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// qaProject permits the fleet's qa apps: this repository, the loopback
// chart repository (its exact URL: Argo CD cannot normalize a glob in the
// port, "http://127.0.0.1:*", and such a pattern permits nothing), in-cluster ledger-* namespaces and argocd (the root
// app's), Namespaces only among
// cluster-scoped kinds, no ResourceQuota.
func qaProject(chartURL string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: ledger-qa
  namespace: argocd
spec:
  sourceRepos:
  - https://gitlab.example.com/platform/ledger-fleet.git
  - ` + chartURL + `
  destinations:
  - server: https://kubernetes.default.svc
    namespace: 'ledger-*'
  - server: https://kubernetes.default.svc
    namespace: argocd
  clusterResourceWhitelist:
  - group: ''
    kind: Namespace
  namespaceResourceBlacklist:
  - group: ''
    kind: ResourceQuota
`
}

// directoryApp is a qa Application rendering the plain manifests of dir.
func directoryApp(name, project, dir string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: %s
  namespace: argocd
spec:
  project: %s
  source:
    repoURL: https://gitlab.example.com/platform/ledger-fleet.git
    targetRevision: main
    path: %s
  destination:
    server: https://kubernetes.default.svc
    namespace: ledger-extra
`, name, project, dir)
}

// widgetCRD is a CRD the repository keeps as a file, no app rendering it.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties: {size: {type: integer}}
`

const sharedConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata: {a: b}\n"

// TestWillNotSync runs the command on a real git repository whose head
// revision makes every sync-readiness rule fire in qa, with one finding
// base already had: the JSON lists the new ones first and the old one
// marked preexisting, the note opens with "Will not sync", and the run
// exits 1 after writing the report, 0 with --fail-on never.
func TestWillNotSync(t *testing.T) {
	f := newFleet(t)
	f.write(t, "projects/qa.yaml", qaProject(f.Charts.URL))
	f.edit(t, ".promote.yaml", "ordering:", "appProjects: [\"projects/{env}.yaml\"]\n"+
		"syncReadiness: {kubeVersions: {qa: '1.24'}}\nordering:")
	f.write(t, "argocd/qa/app-extra.yaml", directoryApp("extra-qa", "ledger-qa", "extra/qa"))
	// already at base: a deprecated API
	f.write(t, "extra/qa/cron.yaml", "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\nspec: {}\n")
	f.commit(t, "qa: an AppProject and an extra app")

	f.write(t, "extra/qa/more.yaml", strings.Join([]string{
		"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\nrules: []\n",
		"apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: web\nspec: {}\n",
		"apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: quota\nspec: {}\n",
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n  namespace: kube-system\n",
		sharedConfigMap,
		"apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports: [{port: '80', prot: 80}]\n",
		"apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec: {size: big}\n",
		"apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n",
	}, "---\n"))
	f.write(t, "extra/crds/widget-crd.yaml", widgetCRD)
	f.write(t, "argocd/qa/app-twin.yaml", directoryApp("twin-qa", "ledger-qa", "extra/twin"))
	f.write(t, "extra/twin/cm.yaml", sharedConfigMap)
	f.write(t, "argocd/qa/app-stray.yaml", directoryApp("stray-qa", "ledger-nope", "extra/twin"))
	f.commit(t, "qa: things Argo CD would refuse")

	r := f.run(t, nil, "--base", "HEAD~1", "--head", "HEAD", "--env", "qa", "-o", "json")
	if r.code != 1 || !strings.Contains(r.errOut, "will not sync: the change adds") {
		t.Fatalf("exit %d, want 1 naming the findings; stderr:\n%s", r.code, r.errOut)
	}
	var doc struct {
		Findings []map[string]any `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatalf("the whole report is written before exiting: %v\n%s", err, r.out)
	}
	var got []string
	for _, fd := range doc.Findings {
		line := fmt.Sprintf("%s %s %s %v/%v", fd["severity"], fd["rule"], fd["app"], fd["kind"], fd["name"])
		if fd["preexisting"] == true {
			line += " preexisting"
		}
		got = append(got, line)
	}
	want := []string{
		"error project-cluster-resource extra-qa ClusterRole/reader",
		"error shared-resource extra-qa ConfigMap/shared",
		"error api-removed extra-qa Ingress/web",
		"error project-namespace-resource extra-qa ResourceQuota/quota",
		"error project-namespace extra-qa Secret/x",
		"error schema-type extra-qa Service/web",
		"error schema-unknown-field extra-qa Service/web",
		"error schema-type extra-qa Widget/w",
		"error project-missing stray-qa /",
		"error shared-resource stray-qa ConfigMap/shared",
		"error shared-resource twin-qa ConfigMap/shared",
		"info schema-unknown-kind  Application/",
		"info schema-unknown-kind  ApplicationSet/",
		"info schema-unknown-kind  Gadget/",
		"warning api-deprecated extra-qa CronJob/nightly preexisting",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	r = f.run(t, nil, "--base", "HEAD~1", "--head", "HEAD", "--env", "qa", "-o", "markdown", "--fail-on", "never")
	if r.code != 0 {
		t.Fatalf("--fail-on never: exit %d\n%s", r.code, r.errOut)
	}
	if !strings.Contains(r.out, "### :no_entry: Will not sync: 11 errors\n") ||
		strings.Index(r.out, "Will not sync") > strings.Index(r.out, "### Manifest diff") ||
		!strings.Contains(r.out, "Already on the target branch: 1 warning") {
		t.Errorf("the note does not open with the findings:\n%s", r.out)
	}
	if !strings.Contains(r.out, "projects/qa.yaml:") {
		t.Errorf("no finding names the AppProject's file:line:\n%s", r.out)
	}
}

// TestWillNotSyncAll: a change to an AppProject alone changes no app's
// inputs, so only --all renders the apps it now refuses.
func TestWillNotSyncAll(t *testing.T) {
	f := newFleet(t)
	f.write(t, "projects/qa.yaml", qaProject(f.Charts.URL))
	f.edit(t, ".promote.yaml", "ordering:", "appProjects: [\"projects/{env}.yaml\"]\nordering:")
	f.commit(t, "qa: an AppProject")
	f.edit(t, "projects/qa.yaml", "namespace: 'ledger-*'", "namespace: 'ledger-node-*'")
	f.commit(t, "qa: ledger-node-* namespaces only")

	r := f.run(t, nil, "--base", "HEAD~1", "--head", "HEAD", "--env", "qa", "-o", "json")
	if r.code != 0 || strings.Contains(r.out, `"findings"`) {
		t.Fatalf("without --all no app renders: exit %d\n%s\n%s", r.code, r.out, r.errOut)
	}
	r = f.run(t, nil, "--base", "HEAD~1", "--head", "HEAD", "--env", "qa", "-o", "json", "--all")
	var doc struct {
		Apps []struct {
			Status string `json:"status"`
		} `json:"apps"`
		Findings []map[string]any `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatal(err)
	}
	// the root app's Applications have no schema offline: info, left out
	doc.Findings = slices.DeleteFunc(doc.Findings, func(fd map[string]any) bool { return fd["rule"] == "schema-unknown-kind" })
	if r.code != 1 || len(doc.Findings) != 1 || doc.Findings[0]["rule"] != "project-destination" ||
		doc.Findings[0]["app"] != "ledger-gateway-qa" || doc.Findings[0]["preexisting"] != nil {
		t.Fatalf("--all: exit %d, findings %v\n%s", r.code, doc.Findings, r.errOut)
	}
	for _, a := range doc.Apps {
		if a.Status != "unchanged" {
			t.Errorf("--all changed the diff: an app is %s", a.Status)
		}
	}
}

// TestGeneratedRepoSyncs: the bench generator's 12-node repository, its
// AppProjects included, has no sync-readiness error or warning, only the
// schema-unknown-kind info of the kinds it keeps no CRD for.
func TestGeneratedRepoSyncs(t *testing.T) {
	out := t.TempDir()
	gen := exec.Command("python3", "../../scripts/gen_gitops_repo.py", "--out", out, "--nodes", "12", "--git", "--scenario", "promote-prod")
	if b, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, b)
	}
	f := &fleet{Dir: filepath.Join(out, "repo")}
	r := f.run(t, nil, "--base", "HEAD~1", "--head", "HEAD", "-o", "json", "--all", "--fail-on", "warning",
		"--charts-dir", filepath.Join(out, "charts"))
	var doc struct {
		Findings []map[string]any `json:"findings"`
		Summary  struct {
			Apps int `json:"apps"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.errOut)
	}
	if r.code != 0 || doc.Summary.Apps != 153 {
		t.Fatalf("exit %d, %d apps\n%s", r.code, doc.Summary.Apps, r.errOut)
	}
	// Only the kinds it has no CRD for, once per env, as info: Argo
	// CD's own (the root apps render Applications) and the platform's
	// template.
	var got []string
	for _, fd := range doc.Findings {
		got = append(got, fmt.Sprintf("%s %s %s %s %s", fd["severity"], fd["rule"], fd["env"], fd["apiVersion"], fd["kind"]))
	}
	var want []string
	for _, env := range []string{"qa", "preprod", "prod"} {
		for _, k := range []string{"argoproj.io/v1alpha1 Application", "argoproj.io/v1alpha1 ApplicationSet", "platform.example.com/v1alpha1 ProjectApplicationTemplate"} {
			want = append(want, "info schema-unknown-kind "+env+" "+k)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestExampleProjectsPermitTheExample: the bundled example's own
// AppProjects (examples/fleet/argocd/projects.yaml) permit every app of
// the scenario at both revisions, so a newcomer's first run has no
// error or warning finding and exits 0.
func TestExampleProjectsPermitTheExample(t *testing.T) {
	f := newFleet(t)
	f.withProjects(t)
	f.commit(t, "the example's AppProjects")
	base, head := f.scenario(t)
	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json", "--all")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
	}
	var doc struct {
		Findings []struct{ Rule, Severity, App, Message string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, fd := range doc.Findings {
		if fd.Severity != "info" {
			t.Errorf("%s %s, app %s: %s", fd.Severity, fd.Rule, fd.App, fd.Message)
		}
	}
}
