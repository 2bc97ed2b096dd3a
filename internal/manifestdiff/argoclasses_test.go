package manifestdiff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// hooksChart is an in-repo chart as Argo CD's helm-hooks example has it:
// a hook Job named by the API server (generateName), plus two subcharts
// that render the same ConfigMap.
func hooksChart(tr *tree, jobImage string) *tree {
	sub := func(name, value string) {
		tr.write("charts/hooks/charts/"+name+"/Chart.yaml", "apiVersion: v2\nname: "+name+"\nversion: 0.1.0\n").
			write("charts/hooks/charts/"+name+"/templates/cm.yaml",
				"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\ndata: {from: "+value+"}\n")
	}
	tr.write("charts/hooks/Chart.yaml", "apiVersion: v2\nname: hooks\nversion: 0.1.0\n").
		write("charts/hooks/templates/job.yaml", `apiVersion: batch/v1
kind: Job
metadata:
  generateName: {{ .Release.Name }}-migrate-
  annotations: {helm.sh/hook: pre-install, helm.sh/hook-delete-policy: before-hook-creation}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: `+jobImage+`}]
`)
	sub("sub-a", "a")
	sub("sub-b", "b")
	return tr.write("argocd/qa/app-hooks.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: hooks-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: charts/hooks}
  destination: {server: https://kubernetes.default.svc, namespace: hooks}
`)
}

// twoSourcesApp renders the same ConfigMap from both of its sources.
func twoSourcesApp(tr *tree) *tree {
	for _, s := range []string{"one", "two"} {
		tr.write("envs/qa/twice/"+s+"/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: twice}\ndata: {from: "+s+"}\n")
	}
	// a kind the default argocd-cm excludes: Argo CD drops it, and says so
	tr.write("envs/qa/twice/two/ep.yaml", "apiVersion: v1\nkind: Endpoints\nmetadata: {name: external}\nsubsets: []\n")
	return tr.write("argocd/qa/app-twice.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: twice-qa, namespace: argocd}
spec:
  project: ledger-qa
  sources:
  - {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/twice/one}
  - {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/twice/two}
  destination: {server: https://kubernetes.default.svc, namespace: twice}
`)
}

// Objects Argo CD renders are never an app's error: a hook Job with
// generateName is diffed under a stable key as created at sync, and an
// object rendered twice (by two subcharts, by two sources) is its last
// copy, with Argo CD's warning on the app; an object of a kind Argo
// CD's resource filter excludes is dropped, with its warning.
func TestArgoCDAcceptedObjects(t *testing.T) {
	base := exampleFleet(t)
	head := twoSourcesApp(hooksChart(derive(t, base), "migrate:v1"))
	rep, _, err := run(t, base, head.m, 0)
	if err != nil {
		t.Fatal(err)
	}

	hooks := findApp(t, rep, "qa", "hooks-qa")
	if hooks.Status != report.StatusAdded {
		t.Fatalf("hooks-qa: status %s, error %q", hooks.Status, hooks.Error)
	}
	job := resource(t, hooks, "Job")
	if job.Name != diff.SyncName("hooks-qa-migrate-", 1) || job.GenerateName != "hooks-qa-migrate-" || job.Namespace != "hooks" {
		t.Errorf("Job %s/%s (generateName %q), want hooks/hooks-qa-migrate- created at sync", job.Namespace, job.Name, job.GenerateName)
	}
	if cm := resource(t, hooks, "ConfigMap"); cm.Name != "shared" {
		t.Errorf("ConfigMap %s, want shared", cm.Name)
	}
	if d := cmp.Diff([]string{"Resource /ConfigMap/hooks/shared appeared 2 times among application resources."}, hooks.Warnings); d != "" {
		t.Errorf("hooks-qa warnings (-want +got):\n%s", d)
	}

	twice := findApp(t, rep, "qa", "twice-qa")
	if twice.Status != report.StatusAdded {
		t.Fatalf("twice-qa: status %s, error %q", twice.Status, twice.Error)
	}
	if len(twice.Resources) != 1 {
		t.Errorf("twice-qa resources %+v, want the ConfigMap alone", twice.Resources)
	}
	if cm := resource(t, twice, "ConfigMap"); !strings.Contains(cm.Diff, "from: two") || strings.Contains(cm.Diff, "from: one") {
		t.Errorf("the second source's copy must win, as in Argo CD:\n%s", cm.Diff)
	}
	if d := cmp.Diff([]string{"Resource /ConfigMap/twice/twice appeared 2 times among application resources.",
		"Resource /Endpoints external is excluded in the settings"}, twice.Warnings); d != "" {
		t.Errorf("twice-qa warnings (-want +got):\n%s", d)
	}

	// The stable key: a changed hook Job is one changed resource, not a
	// removed one and an added one.
	next := hooksChart(derive(t, head.m), "migrate:v2")
	rep, _, err = run(t, head.m, next.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	hooks = findApp(t, rep, "qa", "hooks-qa")
	job = resource(t, hooks, "Job")
	if job.Status != diff.Changed || !strings.Contains(job.Diff, "+        - image: migrate:v2") {
		t.Errorf("Job %s, want changed to migrate:v2:\n%s", job.Status, job.Diff)
	}
	if cm := resource(t, hooks, "ConfigMap"); cm.Status != diff.Unchanged {
		t.Errorf("ConfigMap %s, want unchanged", cm.Status)
	}
}
