package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// qaProject permits the fleet's qa apps: this repository, the loopback
// chart repository, in-cluster ledger-* namespaces and argocd (the root
// app's), Namespaces only among
// cluster-scoped kinds, no ResourceQuota.
const qaProject = `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: ledger-qa
  namespace: argocd
spec:
  sourceRepos:
  - https://gitlab.example.com/platform/ledger-fleet.git
  - http://127.0.0.1:*
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

const sharedConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata: {a: b}\n"

// TestWillNotSync runs the command on a real git repository whose head
// revision makes every sync-readiness rule fire in qa, with one finding
// base already had: the JSON lists the new ones first and the old one
// marked preexisting, the note opens with "Will not sync", and the run
// exits 1 after writing the report, 0 with --fail-on never.
func TestWillNotSync(t *testing.T) {
	f := newFleet(t)
	f.write(t, "projects/qa.yaml", qaProject)
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
	}, "---\n"))
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
		"error project-missing stray-qa /",
		"error shared-resource stray-qa ConfigMap/shared",
		"error shared-resource twin-qa ConfigMap/shared",
		"warning api-deprecated extra-qa CronJob/nightly preexisting",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	r = f.run(t, nil, "--base", "HEAD~1", "--head", "HEAD", "--env", "qa", "-o", "markdown", "--fail-on", "never")
	if r.code != 0 {
		t.Fatalf("--fail-on never: exit %d\n%s", r.code, r.errOut)
	}
	if !strings.Contains(r.out, "### :no_entry: Will not sync: 8 errors\n") ||
		strings.Index(r.out, "Will not sync") > strings.Index(r.out, "### Manifest diff") ||
		!strings.Contains(r.out, "Already on the target branch: 1 warning") {
		t.Errorf("the note does not open with the findings:\n%s", r.out)
	}
	if !strings.Contains(r.out, "projects/qa.yaml:") {
		t.Errorf("no finding names the AppProject's file:line:\n%s", r.out)
	}
}
