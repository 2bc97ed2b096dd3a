package main

import (
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A head that pins a chart version the repository lacks must fail loudly:
// that app is an error naming env, app, chart and version, every other app
// is still reported, the run exits 1 and every format says so first.
func TestRenderErrorIsLoud(t *testing.T) {
	f := newFleet(t)
	base, _ := f.scenario(t)
	f.edit(t, "argocd/qa/app-gateway.yaml", "targetRevision: '2.1.0'", "targetRevision: '9.9.9'")
	head := f.commit(t, "pin a gateway chart that was never published")

	want := maps.Clone(scenarioStatuses)
	want["qa/ledger-gateway-qa"] = "error"
	want["qa/ledger-root-qa"] = "changed" // renders the edited app-gateway.yaml

	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.errOut)
	}
	if lines := strings.Split(strings.TrimSpace(r.errOut), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "failed to render") {
		t.Errorf("stderr should be one line saying apps failed to render, got:\n%s", r.errOut)
	}
	doc := parseJSON(t, r.out)
	if diff := cmp.Diff(want, doc.statuses()); diff != "" {
		t.Errorf("app statuses (-want +got):\n%s", diff)
	}
	for _, a := range doc.Apps {
		if a.Name != "ledger-gateway-qa" {
			continue
		}
		for _, s := range []string{"qa", "ledger-gateway-qa", "edge-gateway", "9.9.9"} {
			if !strings.Contains(a.Error, s) {
				t.Errorf("error %q does not name %q", a.Error, s)
			}
		}
		if strings.Contains(a.Error, "\n") {
			t.Errorf("error is not one line: %q", a.Error)
		}
	}
	if doc.Summary.ByStatus["error"] != 1 {
		t.Errorf("summary byStatus = %v, want 1 error", doc.Summary.ByStatus)
	}

	md := f.run(t, nil, "--base", base, "--head", head, "-o", "markdown")
	lines := strings.SplitN(md.out, "\n", 3)
	if md.code != 1 || len(lines) < 3 || lines[0] != "<!-- manifestdiff -->" ||
		!strings.HasPrefix(lines[1], "> :warning: **1 app failed to render") || !strings.Contains(lines[1], "qa/ledger-gateway-qa") {
		t.Errorf("markdown (exit %d) must open with the failure after the marker:\n%s", md.code, md.out)
	}
	d := f.run(t, nil, "--base", base, "--head", head, "-o", "diff")
	if d.code != 1 || !strings.HasPrefix(d.out, "1 app failed to render") {
		t.Errorf("diff (exit %d) must open with the failure:\n%s", d.code, d.out)
	}
}

func TestDetailedExitCode(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	tests := []struct {
		name       string
		base, head string
		detailed   bool
		wantCode   int
	}{
		{"changes, plain", base, head, false, 0},
		{"changes, detailed", base, head, true, 2},
		{"same commit, detailed", head, head, true, 0},
		{"same tree, other commit", head, f.commit(t, "empty commit"), true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"--base", tt.base, "--head", tt.head, "-o", "json"}
			if tt.detailed {
				args = append(args, "--detailed-exitcode")
			}
			r := f.run(t, nil, args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tt.wantCode, r.errOut)
			}
			if tt.wantCode != 0 || tt.base == base {
				return
			}
			// No change: every app is still listed, and unchanged.
			doc := parseJSON(t, r.out)
			for k, v := range doc.statuses() {
				if v != "unchanged" {
					t.Errorf("%s is %s", k, v)
				}
			}
			if len(doc.Apps) != 22 {
				t.Errorf("%d apps reported, want the head's 22", len(doc.Apps))
			}
			md := f.run(t, nil, "--base", tt.base, "--head", tt.head, "-o", "markdown")
			if !strings.Contains(md.out, "\nNo changes.\n") || !strings.Contains(md.out, "| prod | 0 | 0 | 0 | 10 | 0 |") {
				t.Errorf("markdown should say no changes and count every app unchanged:\n%s", md.out)
			}
		})
	}
}

// A kustomize source of the repository is built; sources manifestdiff
// cannot render offline (here: a config management plugin, which runs in
// a sidecar of the cluster) are reported, never dropped; an ApplicationSet it cannot expand
// fails the run, naming it.
func TestUnsupportedSources(t *testing.T) {
	f := newFleet(t)
	f.write(t, "envs/qa/overlay/kustomization.yaml", "resources: [cm.yaml]\n")
	f.write(t, "envs/qa/overlay/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: overlay}\n")
	f.write(t, "argocd/qa/app-overlay.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ledger-overlay-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/overlay}
  destination: {server: https://kubernetes.default.svc, namespace: ledger-overlay}
`)
	base := f.commit(t, "a kustomize app")
	f.edit(t, "envs/qa/overlay/cm.yaml", "name: overlay", "name: overlay-2")
	f.write(t, "envs/qa/other/kustomization.yaml", "resources: []\n")
	f.write(t, "argocd/qa/app-other.yaml", strings.NewReplacer("ledger-overlay", "ledger-other",
		"path: envs/qa/overlay}", "path: envs/qa/other, plugin: {name: x}}").Replace(f.read(t, "argocd/qa/app-overlay.yaml")))
	head := f.commit(t, "edit it, add another")

	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json", "--env", "qa")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
	}
	got := map[string][2]string{}
	for _, a := range parseJSON(t, r.out).Apps {
		if a.NotRendered != "" || a.Name == "ledger-overlay-qa" {
			got[a.Name] = [2]string{a.Status, a.NotRendered}
		}
		if a.Name == "ledger-overlay-qa" && !strings.Contains(r.out, "overlay-2") {
			t.Errorf("the rendered overlay's ConfigMap rename is not in the report:\n%s", r.out)
		}
	}
	want := map[string][2]string{
		"ledger-overlay-qa": {"changed", ""},
		"ledger-other-qa":   {"added", "plugin source envs/qa/other not rendered"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("not-rendered apps (-want +got):\n%s", diff)
	}

	f.edit(t, "argocd/prod/appset-nodes.yaml", "  - git:\n      repoURL: https://gitlab.example.com/platform/ledger-fleet.git\n      revision: main\n      directories:\n      - path: envs/prod/nodes/*\n  template:\n    metadata:\n      name: \"ledger-{{path.basename}}-api-prod\"",
		"  - clusters: {}\n  template:\n    metadata:\n      name: \"ledger-{{path.basename}}-api-prod\"")
	bad := f.commit(t, "a clusters generator")
	// The ApplicationSet fails only its own apps: they are errors naming
	// it and the generator; the report is written, the exit code is 1.
	r = f.run(t, nil, "--base", head, "--head", bad, "-o", "json")
	if r.code != 1 || strings.Count(r.errOut, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q: want exit 1 and one line", r.code, r.errOut)
	}
	errs := 0
	for _, a := range parseJSON(t, r.out).Apps {
		if a.Status != "error" {
			continue
		}
		errs++
		if !strings.HasPrefix(a.Name, "ledger-node-") || !strings.Contains(a.Error, "ledger-api-prod") || !strings.Contains(a.Error, "clusters") {
			t.Errorf("%s: error %q should name the ApplicationSet and generator", a.Name, a.Error)
		}
	}
	if errs != 3 {
		t.Errorf("%d apps in error, want the 3 of ledger-api-prod:\n%s", errs, r.out)
	}
}
