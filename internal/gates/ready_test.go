package gates

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/rendercheck"
)

// renders answers the syncReady gate as manifestdiff's report would
// (cmd/promote's tests run the real one), and records what it was asked.
type renders struct {
	res   *rendercheck.Result
	err   error
	env   string
	base  plumbing.Hash
	files map[string][]byte
}

func (r *renders) Promotion(_ context.Context, env string, base plumbing.Hash, files map[string][]byte) (*rendercheck.Result, error) {
	r.env, r.base, r.files = env, base, files
	return r.res, r.err
}

func finding(sev, rule, app string, pre bool) rendercheck.Finding {
	return rendercheck.Finding{Rule: rule, Severity: sev, Env: "prod", App: app, APIVersion: "rbac.authorization.k8s.io/v1",
		Kind: "ClusterRole", Name: "reader", Message: "not permitted by AppProject dlt-prod (argocd/projects.yaml:9)", Preexisting: pre}
}

// TestSyncReadyGate: a new error refuses (require) or warns (warn), one
// line per finding; a preexisting error, a warning or another env's
// finding does not; an app not rendered, a failed run or no renderer
// refuse in both modes; an override records a trailer.
func TestSyncReadyGate(t *testing.T) {
	clusterRole := finding("error", "project-cluster-resource", "backend-prod", false)
	for _, c := range []struct {
		name, mode, override string
		ready                *renders // nil: no renderer
		passed, warning      bool
		want                 []string // in the refusal, or the summary when it passes
		trailer              string
	}{
		{name: "new error refuses", mode: "require",
			ready: &renders{res: &rendercheck.Result{Rendered: 2, Findings: []rendercheck.Finding{clusterRole,
				finding("error", "api-removed", "vault-prod", false)}}},
			want: []string{"preprod -> prod refused by gate syncReady: error project-cluster-resource prod/backend-prod rbac.authorization.k8s.io/v1 ClusterRole reader: not permitted by AppProject dlt-prod (argocd/projects.yaml:9)\n    error api-removed prod/vault-prod"}},
		{name: "preexisting and warnings pass", mode: "require",
			ready: &renders{res: &rendercheck.Result{Rendered: 2, Findings: []rendercheck.Finding{
				finding("error", "project-cluster-resource", "backend-prod", true),
				finding("warning", "api-deprecated", "backend-prod", false),
				{Rule: "api-removed", Severity: "error", Env: "qa", App: "backend-qa"}}}},
			passed: true, want: []string{"no new sync-readiness error in prod (2 apps rendered before and after); 1 new warning"}},
		{name: "warn goes on", mode: "warn",
			ready:  &renders{res: &rendercheck.Result{Rendered: 1, Findings: []rendercheck.Finding{clusterRole}}},
			passed: true, warning: true, want: []string{"prod would get 1 new sync-readiness error"}},
		{name: "not rendered refuses even in warn", mode: "warn",
			ready: &renders{res: &rendercheck.Result{Failed: "render failed", Errors: []rendercheck.AppError{
				{Env: "prod", Name: "backend-prod", Error: "env prod, app backend-prod: chart dlt-backend 3.1.0 from https://charts.example.com: not found"}}}},
			want: []string{"cannot render: env prod, app backend-prod: chart dlt-backend 3.1.0 from https://charts.example.com: not found"}},
		{name: "failed run refuses", mode: "warn",
			ready: &renders{err: errors.New("running manifestdiff: signal: killed")},
			want:  []string{"syncReady: cannot evaluate: running manifestdiff: signal: killed"}},
		{name: "no renderer refuses", mode: "require",
			want: []string{"syncReady: cannot evaluate: manifestdiff not found beside promote nor on PATH"}},
		{name: "overridden", mode: "require", override: "CAB-77 approved",
			ready:   &renders{res: &rendercheck.Result{Rendered: 1, Findings: []rendercheck.Finding{clusterRole}}},
			trailer: "Gate-Overridden: syncReady by alice: CAB-77 approved"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.files[".promote.yaml"] = strings.Replace(promoteYAML, "{sourceHealthy: true, minSoak: 2h, syncWindow: require}", "{syncReady: "+c.mode+"}", 1)
			f.commit("gate: syncReady")
			ch, base := f.checker(nil)
			if c.ready != nil {
				ch.Ready = c.ready
			} else {
				ch.NoReady = rendercheck.ErrNotFound.Error()
			}
			files := map[string][]byte{"versions/prod.yaml": []byte(versionsYAML("3.1.0", "v2.1.0", "1.2.0"))}
			req := Request{From: "preprod", To: "prod", Base: base, PlanBase: base, Files: files, User: "alice"}
			if c.override != "" {
				req.Overrides = map[string]string{"syncReady": c.override}
			}
			rep, err := ch.Check(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			r := result(rep, "syncReady")
			if c.ready != nil && (c.ready.env != "prod" || c.ready.base != base || string(c.ready.files["versions/prod.yaml"]) == "") {
				t.Errorf("rendered %s at %s with %d files, want prod at the plan base with the plan's files", c.ready.env, c.ready.base, len(c.ready.files))
			}
			if r.Passed != c.passed || r.Warning != c.warning {
				t.Errorf("passed %v warning %v, want %v %v: %+v", r.Passed, r.Warning, c.passed, c.warning, r)
			}
			if c.trailer != "" {
				if got := strings.Join(rep.Trailers(), "\n"); got != c.trailer || rep.Err() != nil {
					t.Errorf("trailers %q (err %v), want %q", got, rep.Err(), c.trailer)
				}
				return
			}
			text := r.Summary
			if err := rep.Err(); err != nil {
				if c.passed || !errors.Is(err, ErrRefused) {
					t.Errorf("err %v for a gate that passed %v", err, c.passed)
				}
				text = err.Error()
			} else if !c.passed {
				t.Fatal("no refusal")
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q lacks %q", text, w)
				}
			}
		})
	}
}

// TestSyncReadyNotForRollback: a rollback restores values the env ran;
// only its sync window gates it, nothing is rendered.
func TestSyncReadyNotForRollback(t *testing.T) {
	f := newFixture(t)
	f.files[".promote.yaml"] = strings.Replace(promoteYAML, "{sourceHealthy: true, minSoak: 2h, syncWindow: require}", "{syncReady: require}", 1)
	f.commit("gate: syncReady")
	ch, base := f.checker(nil)
	ready := &renders{res: &rendercheck.Result{}}
	ch.Ready = ready
	rep, err := ch.Check(context.Background(), Request{From: "rollback", To: "prod", Base: base, WindowOnly: true})
	if err != nil || len(rep.Results) != 0 || ready.env != "" {
		t.Fatalf("results %+v err %v, rendered %q", rep.Results, err, ready.env)
	}
}
