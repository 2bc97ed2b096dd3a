package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// edit replaces old with new in a fleet file and commits it.
func (f *fleet) edit(t *testing.T, path, old, new string) {
	t.Helper()
	data := f.read(t, path)
	if !strings.Contains(data, old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	f.commitFile(t, path, strings.Replace(data, old, new, 1), "seed a defect in "+path)
}

const prodNodes = "argocd/prod/appset-nodes.yaml"

// Each seeded defect is reported by check with its rule and app, and
// blocks a promotion into prod; nothing is written.
func TestOrderingDefectsBlockPromotion(t *testing.T) {
	tests := []struct {
		name, rule, app string
		seed            func(t *testing.T, f *fleet)
	}{
		{"later-wave dependency", "depends-on-order", "ledger-gateway-prod", func(t *testing.T, f *fleet) {
			f.edit(t, "argocd/prod/app-gateway.yaml", "argocd.argoproj.io/sync-wave: \"0\"\r\n",
				"argocd.argoproj.io/sync-wave: \"0\"\r\n    gitops-promote/depends-on: ledger-worker\r\n")
		}},
		{"cycle", "depends-on-cycle", "ledger-api-prod", func(t *testing.T, f *fleet) {
			f.edit(t, prodNodes, "argocd.argoproj.io/sync-wave: \"1\"\n",
				"argocd.argoproj.io/sync-wave: \"1\"\n        gitops-promote/depends-on: ledger-worker\n")
		}},
		{"missing app in one env", "env-parity", "ledger-gateway", func(t *testing.T, f *fleet) {
			gitRun(t, f.Dir, "rm", "-q", "argocd/prod/app-gateway.yaml")
			gitRun(t, f.Dir, "commit", "-q", "-m", "drop the prod gateway")
		}},
		{"auto-synced prod app", "manual-sync", "ledger-gateway-prod", func(t *testing.T, f *fleet) {
			f.edit(t, "argocd/prod/app-gateway.yaml", "syncPolicy: {}", "syncPolicy: {automated: {prune: true}}")
		}},
		{"empty RollingSync step", "rollingsync-empty-step", "ledger-api-prod", func(t *testing.T, f *fleet) {
			f.edit(t, prodNodes, "  template:\n    metadata:\n      name: \"ledger-{{path.basename}}-api-prod\"\n",
				"  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n      - matchExpressions: [{key: tier, operator: In, values: [api]}]\n"+
					"      - matchExpressions: [{key: tier, operator: In, values: [canary]}]\n"+
					"  template:\n    metadata:\n      name: \"ledger-{{path.basename}}-api-prod\"\n      labels: {tier: api}\n")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t)
			tt.seed(t, f)
			c := f.run(t, nil, "check", "--env", "prod", "--output", "json")
			var got struct{ Findings []struct{ Rule, App string } }
			if err := json.Unmarshal([]byte(c.out), &got); err != nil {
				t.Fatalf("check output: %v\n%s", err, c.out)
			}
			found := false
			for _, fd := range got.Findings {
				found = found || (fd.Rule == tt.rule && fd.App == tt.app)
			}
			if c.code != 1 || !found {
				t.Errorf("check: exit %d, findings %+v; want %s for %s", c.code, got.Findings, tt.rule, tt.app)
			}
			before := f.snapshot(t)
			r := f.run(t, nil, "apply", "--from", "preprod", "--to", "prod")
			if r.code != 1 || !strings.Contains(r.errOut, "ordering finding") || !strings.Contains(r.errOut, tt.rule) || !strings.Contains(r.errOut, "--ignore-ordering") {
				t.Errorf("apply: exit %d, stderr %q", r.code, r.errOut)
			}
			if after := f.snapshot(t); after != before {
				t.Errorf("refused apply wrote something: %+v -> %+v", before, after)
			}
			p := f.run(t, nil, "plan", "--from", "preprod", "--to", "prod")
			if p.code != 1 || p.errOut != r.errOut || p.out != "" {
				t.Errorf("plan does not predict apply's refusal: exit %d, stdout %q, stderr %q; apply said %q", p.code, p.out, p.errOut, r.errOut)
			}
		})
	}
}

func TestIgnoreOrderingIsRecorded(t *testing.T) {
	f := newFleet(t)
	f.edit(t, "argocd/prod/app-gateway.yaml", "syncPolicy: {}", "syncPolicy: {automated: {prune: true}}")
	r := f.run(t, nil, "apply", "--from", "preprod", "--to", "prod", "--ignore-ordering")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if body := gitRun(t, f.Dir, "log", "-1", "--format=%B"); !strings.Contains(body, "Ordering-Ignored: 1 finding(s), --ignore-ordering") {
		t.Errorf("commit does not record the override:\n%s", body)
	}
}

func TestWavesGolden(t *testing.T) {
	f := newFleet(t)
	r := f.run(t, nil, "waves")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	golden(t, "waves.md", normalize(f, r.out))
	j := f.run(t, nil, "waves", "--env", "prod", "--output", "json")
	var inv struct {
		Envs []struct {
			Waves []struct {
				Wave    int
				Objects []struct{ Name string }
			}
		}
	}
	if err := json.Unmarshal([]byte(j.out), &inv); err != nil || len(inv.Envs) != 1 {
		t.Fatalf("json: %v\n%s", err, j.out)
	}
	var order []string
	for _, w := range inv.Envs[0].Waves {
		for _, o := range w.Objects {
			order = append(order, o.Name)
		}
	}
	want := "ledger-gateway-prod ledger-root-prod ledger-api-prod ledger-worker-prod"
	if strings.Join(order, " ") != want {
		t.Errorf("prod order = %v, want %s", order, want)
	}
	if bad := f.run(t, nil, "waves", "--output", "text"); bad.code != 1 {
		t.Errorf("waves --output text accepted")
	}
	table := f.run(t, nil, "waves", "-o", "table")
	if table.code != 0 {
		t.Fatalf("waves -o table: exit %d: %s", table.code, table.errOut)
	}
	golden(t, "waves.txt", normalize(f, table.out))
}

// Without -o, waves prints a table to a terminal and markdown to a pipe
// or file, where it usually ends up in a merge request or a wiki.
func TestWavesDefaultFollowsTheTerminal(t *testing.T) {
	f := newFleet(t)
	var out, errOut strings.Builder
	ios := &ioStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutTTY: true}
	if code := exitCode(ios, runArgs(t.Context(), []string{"waves", "--env", "prod", "--repo", f.Dir}, ios, func(string) string { return "" })); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	tty := out.String()
	if pipe := f.run(t, nil, "waves", "--env", "prod").out; !strings.HasPrefix(pipe, "## prod\n\n| Wave |") {
		t.Errorf("waves to a pipe is not markdown:\n%s", pipe)
	}
	if want := f.run(t, nil, "waves", "--env", "prod", "-o", "table").out; tty != want || !strings.Contains(tty, "  WAVE  KIND") {
		t.Errorf("waves on a terminal is not the table:\n%s", tty)
	}
}

// The chart check runs while the ordering checks finish: their refusal
// still comes first, and does not wait on a chart repository that never
// answers (it would for a minute, its response timeout).
func TestOrderingRefusalDoesNotWaitForTheChartCheck(t *testing.T) {
	f := newFleet(t)
	f.edit(t, "argocd/prod/app-gateway.yaml", "syncPolicy: {}", "syncPolicy: {automated: {prune: true}}")
	release := make(chan struct{})
	f.Charts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	before := f.snapshot(t)
	done := make(chan result, 1)
	go func() { done <- f.run(t, nil, "apply", "--from", "preprod", "--to", "prod") }()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("apply still waits for the chart repository, though the ordering checks refused")
	}
	if r.code != 1 || !strings.Contains(r.errOut, "manual-sync") || strings.Contains(r.errOut, "chart") {
		t.Errorf("apply: exit %d, stderr %q; want the ordering refusal alone", r.code, r.errOut)
	}
	if after := f.snapshot(t); after != before {
		t.Errorf("refused apply wrote something: %+v -> %+v", before, after)
	}
}
