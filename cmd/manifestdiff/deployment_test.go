package main

import (
	"strings"
	"testing"
)

const capsApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: caps-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/caps}
  destination: {server: https://kubernetes.default.svc, namespace: caps}
`

// withCapsChart adds an in-repo chart that prints the capabilities the
// renderer gives it, and its app.
func withCapsChart(t *testing.T, f *fleet) {
	f.write(t, "argocd/qa/app-caps.yaml", capsApp)
	f.write(t, "envs/qa/caps/Chart.yaml", "apiVersion: v2\nname: caps\nversion: 0.1.0\n")
	f.write(t, "envs/qa/caps/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caps}\n"+
		"data:\n  helm: {{ .Capabilities.HelmVersion.Version | quote }}\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n")
}

// capsDiff runs manifestdiff from base to head and returns the caps
// app's status, its ConfigMap's diff and stderr.
func capsDiff(t *testing.T, f *fleet, base, head string, args ...string) (status, diff, stderr string) {
	t.Helper()
	r := f.run(t, nil, append([]string{"--base", base, "--head", head, "--env", "qa", "-o", "json"}, args...)...)
	if r.code != 0 && r.code != 2 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
	}
	for _, a := range parseJSON(t, r.out).Apps {
		if a.Name == "caps-qa" {
			for _, res := range a.Resources {
				diff += res.Diff
			}
			return a.Status, diff, r.errOut
		}
	}
	t.Fatalf("no caps-qa in the report:\n%s", r.out)
	return
}

// TestDeploymentSettingsPerRevision: a merge request that upgrades Argo
// CD (3.4, Helm 3 -> 3.6, Helm 4) or the cluster (kubeVersion) renders
// base with base's settings and head with head's, so the review shows
// what the upgrade changes; .promote.yaml's other keys stay head's.
func TestDeploymentSettingsPerRevision(t *testing.T) {
	f := newFleet(t)
	withCapsChart(t, f)
	f.edit(t, ".promote.yaml", "ordering:", "kubeVersion: v1.31.0\nargocd: {version: '3.4'}\nordering:")
	base := f.commit(t, "base: Argo CD 3.4")
	f.edit(t, ".promote.yaml", "kubeVersion: v1.31.0\nargocd: {version: '3.4'}", "kubeVersion: v1.33.0\nargocd: {version: '3.6'}")
	head := f.commit(t, "head: Argo CD 3.6 on Kubernetes 1.33")

	status, diff, stderr := capsDiff(t, f, base, head)
	for _, w := range []string{"-  helm: v3.22.0", "+  helm: v4.3.1", "-  kube: v1.31.0", "+  kube: v1.33.0"} {
		if !strings.Contains(diff, w) {
			t.Errorf("diff lacks %q:\n%s", w, diff)
		}
	}
	if status != "changed" {
		t.Errorf("caps-qa is %s, want changed", status)
	}
	info := "manifestdiff: the argocd, kubeVersion or apiVersions settings differ: each revision renders with its own " +
		"(base: Argo CD 3.4 (Helm 3); head: Argo CD 3.6 (Helm 4)), every app at both\n"
	if stderr != info {
		t.Errorf("stderr %q, want %q", stderr, info)
	}
	if _, _, stderr := capsDiff(t, f, base, head, "--quiet"); stderr != "" {
		t.Errorf("--quiet still says %q", stderr)
	}
	// An ignore rule is a trusted setting: the target branch's applies to
	// both sides; one the merge request adds waits for the merge.
	f.edit(t, ".promote.yaml", "ordering:", "ignore: [data.helm]\nordering:")
	ignoring := f.commit(t, "head: ignore the helm version")
	if _, diff, stderr := capsDiff(t, f, base, ignoring); !strings.Contains(diff, "helm: v") || !strings.Contains(stderr, "this change sets ignore in .promote.yaml") {
		t.Errorf("the merge request's ignore rule must wait for the merge:\n%s\n%s", diff, stderr)
	}
	f.edit(t, ".promote.yaml", "kubeVersion: v1.33.0\nargocd: {version: '3.6'}", "kubeVersion: v1.31.0\nargocd: {version: '3.4'}")
	baseIgnoring := f.commit(t, "base: Argo CD 3.4, ignoring the helm version")
	if _, diff, _ := capsDiff(t, f, baseIgnoring, ignoring); strings.Contains(diff, "helm: v") || !strings.Contains(diff, "+  kube: v1.33.0") {
		t.Errorf("the target branch's ignore rule must apply to both sides:\n%s", diff)
	}
	// The reverse compares as well: a downgrade shows Helm 4 -> Helm 3.
	if _, diff, _ := capsDiff(t, f, head, base); !strings.Contains(diff, "-  helm: v4.3.1") || !strings.Contains(diff, "+  helm: v3.22.0") {
		t.Errorf("downgrade diff:\n%s", diff)
	}
}

// When base's deployment settings cannot be known (no .promote.yaml at
// base, or an argocd block that does not read), base renders with head's:
// the switch itself shows no diff, and a broken base block says why.
func TestDeploymentSettingsFallBackToHead(t *testing.T) {
	f := newFleet(t)
	withCapsChart(t, f)
	f.edit(t, ".promote.yaml", "ordering:", "argocd: {version: '3.4', trackin: label}\nordering:")
	broken := f.commit(t, "base: a typo in the argocd block")
	f.edit(t, ".promote.yaml", "argocd: {version: '3.4', trackin: label}", "argocd: {version: '3.6'}")
	head := f.commit(t, "head: fixed, Argo CD 3.6")

	status, diff, stderr := capsDiff(t, f, broken, head)
	if status != "unchanged" || diff != "" {
		t.Errorf("caps-qa %s with diff %q, want unchanged: base renders with head's settings", status, diff)
	}
	if !strings.Contains(stderr, "manifestdiff: warning: .promote.yaml at base: ") || !strings.Contains(stderr, "trackin") ||
		!strings.Contains(stderr, "base renders with head's argocd, kubeVersion and apiVersions") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr %q", stderr)
	}

	cfg := f.read(t, ".promote.yaml")
	f.remove(t, ".promote.yaml")
	none := f.commit(t, "no config")
	f.write(t, ".promote.yaml", cfg)
	added := f.commit(t, "config added, Argo CD 3.6")
	status, diff, stderr = capsDiff(t, f, none, added)
	if status != "unchanged" || diff != "" || !strings.Contains(stderr, "take their defaults, and no git token is sent") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("no config at base: caps-qa %s, diff %q, stderr %q; want unchanged and the trusted settings' warning", status, diff, stderr)
	}
}
