package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
	"github.com/gitops-promote/gitops-promote/internal/render/jsonnetproc"
	"github.com/gitops-promote/gitops-promote/internal/render/kustomizehelm"
	"github.com/gitops-promote/gitops-promote/internal/tempdir"
)

// TestMain lets the test binary answer as kustomize's helm, as main does
// for the released binary (in-process runs build helmCharts too).
func TestMain(m *testing.M) {
	if code, handled := kustomizehelm.Main(os.Args); handled {
		os.Exit(code)
	}
	// Started as the jsonnet evaluator of a run (see jsonnetproc).
	if code, handled := jsonnetproc.Main(os.Args); handled {
		os.Exit(code)
	}
	// In process, the tests run without main's temporary directory: the
	// test binary keeps one of its own.
	removeTemp, err := tempdir.Private("manifestdiff-test-")
	if err != nil {
		panic(err)
	}
	code := m.Run()
	clitest.RemoveBuilds()
	removeTemp()
	os.Exit(code)
}

const kustHelmApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: kusthelm-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/kusthelm}
  destination: {server: https://kubernetes.default.svc, namespace: edge}
`

func kustHelmChart(repo, version, tag string) string {
	return "helmCharts:\n- name: edge-gateway\n  repo: " + repo + "\n  version: " + version +
		"\n  releaseName: edge\n  valuesInline: {gateway: {imageTag: \"" + tag + "\"}}\n"
}

// kustHelmFleet: the fleet with argocd-cm's kustomize.buildOptions
// --enable-helm and an app whose kustomization inflates edge-gateway from
// the fleet's chart repository, 2.0.3 at base, 2.1.0 with another image
// at head.
func kustHelmFleet(t *testing.T) (f *fleet, base, head string) {
	f = newFleet(t)
	f.write(t, ".promote.yaml", f.read(t, ".promote.yaml")+"argocd:\n  kustomize:\n    buildOptions: --enable-helm\n")
	f.write(t, "argocd/qa/app-kusthelm.yaml", kustHelmApp)
	f.write(t, "envs/qa/kusthelm/kustomization.yaml", kustHelmChart(f.Charts.URL, "2.0.3", "1.30"))
	base = f.commit(t, "base: a kustomization inflating a chart")
	f.write(t, "envs/qa/kusthelm/kustomization.yaml", kustHelmChart(f.Charts.URL, "2.1.0", "1.31"))
	return f, base, f.commit(t, "head: the chart's next version")
}

// checkKustHelm: the app is rendered at both revisions (changed, the new
// image in the diff), not reported as not rendered.
func checkKustHelm(t *testing.T, code int, out, diff, errOut string) {
	t.Helper()
	doc := parseJSON(t, out)
	if code != 0 || doc.statuses()["qa/kusthelm-qa"] != "changed" {
		t.Fatalf("exit %d, kusthelm-qa %q; stderr:\n%s\n%s", code, doc.statuses()["qa/kusthelm-qa"], errOut, out)
	}
	if !strings.Contains(diff, "+        - image: registry.example.com/edge/gateway:1.31") {
		t.Errorf("diff lacks the new image:\n%s", diff)
	}
}

// TestKustomizeHelmCharts: with --enable-helm, a kustomization's
// helmCharts render as Argo CD renders them, through the run's chart
// client and its credentials; a credential never shows in an error.
func TestKustomizeHelmCharts(t *testing.T) {
	f, base, head := kustHelmFleet(t)
	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json")
	d := f.run(t, nil, "--base", base, "--head", head, "-o", "diff")
	checkKustHelm(t, r.code, r.out, d.out, r.errOut)

	f.Charts.requireAuth("ci", "Chart-Pw-3141")
	env := map[string]string{"HELM_REPO_USERNAME": "ci", "HELM_REPO_PASSWORD": "Chart-Pw-3141", "HELM_REPO_URL": f.Charts.URL}
	r = f.run(t, env, "--base", base, "--head", head, "-o", "json")
	d = f.run(t, env, "--base", base, "--head", head, "-o", "diff")
	checkKustHelm(t, r.code, r.out, d.out, r.errOut)

	env["HELM_REPO_PASSWORD"] = "Wrong-Pw-2718"
	r = f.run(t, env, "--base", base, "--head", head, "-o", "json")
	var app struct{ Status, Error string }
	for _, a := range parseJSON(t, r.out).Apps {
		if a.Name == "kusthelm-qa" {
			app.Status, app.Error = a.Status, a.Error
		}
	}
	host := strings.TrimPrefix(f.Charts.URL, "http://")
	if r.code != 1 || app.Status != "error" || !strings.Contains(app.Error, "helm chart edge-gateway version 2.0.3 from "+host) {
		t.Errorf("wrong password: exit %d, kusthelm-qa %s: %s", r.code, app.Status, app.Error)
	}
	if strings.Contains(r.out+r.errOut, "Pw-") {
		t.Errorf("a password shows:\n%s\n%s", r.out, r.errOut)
	}
}

// checkReleaseKustHelm runs the release binary: its main answers as
// kustomize's helm.
func checkReleaseKustHelm(t *testing.T, bin string) {
	f, base, head := kustHelmFleet(t)
	run := func(format string) (int, string, string) {
		cmd := exec.Command(bin, "--repo", f.Dir, "--base", base, "--head", head, "--cache-dir", t.TempDir(), "-o", format)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		code := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		return code, out.String(), errb.String()
	}
	code, out, errOut := run("json")
	_, diff, _ := run("diff")
	checkKustHelm(t, code, out, diff, errOut)
}

// checkReleaseTempDir: a kustomization whose helmCharts kustomize
// configures and whose build then fails (a file the load restrictor
// refuses beside the chart) leaves nothing in the machine's temporary
// directory: the release binary runs in a temporary directory of its own
// and removes it (kustomize's generator would leave one kustomize-helm-*
// directory behind per chart).
func checkReleaseTempDir(t *testing.T, bin string) {
	f, base, _ := kustHelmFleet(t)
	f.write(t, "envs/qa/kusthelm/kustomization.yaml", kustHelmChart(f.Charts.URL, "2.1.0", "1.31")+
		"configMapGenerator:\n- {name: env, files: [/proc/self/environ]}\n")
	head := f.commit(t, "head: a file outside the repository beside the chart")
	tmp := t.TempDir()
	cmd := exec.Command(bin, "--repo", f.Dir, "--base", base, "--head", head, "--cache-dir", t.TempDir(), "-o", "json")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (the app fails); stderr:\n%s", err, errb.String())
	}
	if got := parseJSON(t, out.String()).statuses()["qa/kusthelm-qa"]; got != "error" {
		t.Errorf("kusthelm-qa is %q, want error", got)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left in TMPDIR: %s", e.Name())
	}
}
