package gates

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
)

// now (f.now) is Wednesday 2025-01-08 23:00 UTC: inside prod's change
// window (22:00-02:00 Berlin), so only the health gates decide.

func wantRefused(t *testing.T, rep *Report, gate string, wants ...string) {
	t.Helper()
	err := rep.Err()
	var re *RefusedError
	if !errors.Is(err, ErrRefused) || !errors.As(err, &re) {
		t.Fatalf("want a refusal by %s, got %v", gate, err)
	}
	r := result(rep, gate)
	if r.Passed {
		t.Fatalf("%s passed: %+v", gate, r)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal does not say %q:\n%s", w, err)
		}
	}
}

func TestHealthySameValuesPasses(t *testing.T) {
	f := newFixture(t)
	p := f.promotePreprod()
	f.report(p, "success", 3*time.Hour)
	f.commit("qa: bump something unrelated") // statuses are on an older commit
	rep := f.check(nil)
	if err := rep.Err(); err != nil {
		t.Fatalf("refused: %v", err)
	}
	if r := result(rep, config.GateSourceHealthy); !r.Passed || !strings.Contains(r.Summary, "4 of 4 preprod apps healthy") {
		t.Errorf("sourceHealthy: %+v", r)
	}
	if r := result(rep, config.GateMinSoak); !r.Passed {
		t.Errorf("minSoak: %+v", r)
	}
	if r := result(rep, config.GateSyncWindow); !r.Passed || !strings.Contains(r.Summary, "open") {
		t.Errorf("syncWindow: %+v", r)
	}
	if len(rep.Trailers()) != 0 {
		t.Errorf("trailers without overrides: %v", rep.Trailers())
	}
	// one status listing per commit, pages aside: at most the 2 commits read
	if n := f.gl.Calls("GET statuses"); n > 2*2 {
		t.Errorf("%d status requests", n)
	}
}

func TestHealthyOnOlderValuesRefuses(t *testing.T) {
	f := newFixture(t)
	f.report(f.commits[0], "success", 5*time.Hour) // synced before the promotion into preprod
	f.promotePreprod()
	rep := f.check(nil)
	wantRefused(t, rep, config.GateSourceHealthy,
		"backend-preprod: healthy on "+short(f.commits[0])+" with other values",
		"chart dlt-backend 3.1.0 (promoting 3.2.0)",
		"dlt-node.backend.imageTag v2.1.0 (promoting v2.2.0)",
		"alpha-vault-preprod: healthy on",
		"dlt-root-preprod: healthy on")
}

func TestDegradedRefuses(t *testing.T) {
	f := newFixture(t)
	p := f.promotePreprod()
	f.report(p, "success", 4*time.Hour)
	f.gl.SetNow(f.now.Add(-time.Hour))
	f.gl.AddStatus("42", p, StatusPrefix+"backend-preprod", "failed", "Synced/Degraded", "")
	rep := f.check(nil)
	wantRefused(t, rep, config.GateSourceHealthy, "backend-preprod: failed on "+short(p), "(Synced/Degraded)")
	if r := result(rep, config.GateSourceHealthy); len(r.Problems) != 1 {
		t.Errorf("only backend is degraded: %+v", r.Problems)
	}
}

func TestMissingStatusRefuses(t *testing.T) {
	f := newFixture(t)
	p := f.promotePreprod()
	f.report(p, "success", 4*time.Hour, "backend-preprod", "dlt-root-preprod", "alpha-vault-preprod")
	rep := f.check(nil)
	wantRefused(t, rep, config.GateSourceHealthy, "beta-vault-preprod: not reported (no argocd/beta-vault-preprod status; read the whole history (2 commits))")
}

func TestTooYoungRefuses(t *testing.T) {
	f := newFixture(t)
	p := f.promotePreprod()
	f.report(p, "success", 30*time.Minute)
	rep := f.check(nil)
	if r := result(rep, config.GateSourceHealthy); !r.Passed {
		t.Fatalf("sourceHealthy should pass: %+v", r)
	}
	wantRefused(t, rep, config.GateMinSoak, "backend-preprod: healthy on these values for 30m only", "minSoak is 2h0m", "ready at 2025-01-09 00:30 UTC")
}

// A status moved from running to success in place keeps its created_at:
// the soak counts from when it became success (finished_at).
func TestSoakCountsFromSuccessNotFromRunning(t *testing.T) {
	f := newFixture(t)
	p := f.promotePreprod()
	f.report(p, "running", 5*time.Hour)
	f.report(p, "success", 40*time.Minute)
	if st := f.gl.Statuses("42", p); len(st) != len(preprodApps) {
		t.Fatalf("running -> success should move each status in place: %d statuses", len(st))
	}
	wantRefused(t, f.check(nil), config.GateMinSoak, "backend-preprod: healthy on these values for 40m only")
}

// A run of healthy statuses on the same values soaks from its oldest one:
// a re-sync on a newer commit does not restart the clock.
func TestSoakCountsFromTheOldestHealthyStatus(t *testing.T) {
	f := newFixture(t)
	p := f.promotePreprod()
	f.report(p, "success", 3*time.Hour)
	later := f.commit("qa: unrelated")
	f.report(later, "success", 10*time.Minute)
	if err := f.check(nil).Err(); err != nil {
		t.Fatalf("refused: %v", err)
	}
	// ... but a degraded status in between does, even one posted on an
	// older commit: the run is read in the order statuses were posted.
	f.gl.SetNow(f.now.Add(-7 * time.Minute))
	f.gl.AddStatus("42", p, StatusPrefix+"backend-preprod", "failed", "Synced/Degraded", "")
	f.report(f.commit("qa: another"), "success", 5*time.Minute, "backend-preprod")
	wantRefused(t, f.check(nil), config.GateMinSoak, "backend-preprod: healthy on these values for 5m only")
}

func TestOverridesAreRecorded(t *testing.T) {
	f := newFixture(t)
	p := f.promotePreprod()
	f.report(p, "success", 30*time.Minute)
	rep := f.check(map[string]string{config.GateMinSoak: "hotfix for INC-42,\n approved by CAB", config.GateSyncWindow: "not needed"})
	if err := rep.Err(); err != nil {
		t.Fatalf("overridden gate still refuses: %v", err)
	}
	tr := rep.Trailers()
	if len(tr) != 1 || tr[0] != "Gate-Overridden: minSoak by alice: hotfix for INC-42, approved by CAB" {
		t.Errorf("trailers %q", tr)
	}
	if len(rep.Unused) != 1 || rep.Unused[0] != config.GateSyncWindow {
		t.Errorf("unused overrides %v, want syncWindow (it passed)", rep.Unused)
	}
	lines := strings.Join(rep.Lines(), "\n")
	for _, want := range []string{
		"gate sourceHealthy passed: 4 of 4 preprod apps healthy on the promoted values",
		"gate minSoak overridden by alice (hotfix for INC-42, approved by CAB): alpha-vault-preprod: healthy on these values for 30m only",
		"gate syncWindow passed: AppProject dlt-prod: open",
		"gate syncWindow: override not used",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("lines lack %q:\n%s", want, lines)
		}
	}
}

func TestGitLabFailuresRefuse(t *testing.T) {
	f := newFixture(t)
	p := f.promotePreprod()
	f.report(p, "success", 3*time.Hour)

	c, base := f.checker(nil)
	c.NoGitLab = "CI_API_V4_URL is not set"
	rep, err := c.Check(context.Background(), Request{From: "preprod", To: "prod", Base: base})
	if err != nil {
		t.Fatal(err)
	}
	wantRefused(t, rep, config.GateSourceHealthy, "cannot evaluate: GitLab is not configured (CI_API_V4_URL is not set)")
	wantRefused(t, rep, config.GateMinSoak, "cannot evaluate")

	f.gl.FailNextBody(http.MethodGet, "statuses", http.StatusForbidden, nil,
		`{"error":"insufficient_scope","error_description":"The request requires higher privileges than provided by the access token.","scope":"read_api api"}`)
	wantRefused(t, f.check(nil), config.GateSourceHealthy, "cannot evaluate: list statuses of commit", "403 insufficient scope")

	for range 6 {
		f.gl.FailNext(http.MethodGet, "statuses", http.StatusServiceUnavailable, nil)
	}
	wantRefused(t, f.check(nil), config.GateSourceHealthy, "cannot evaluate", "gave up after 6 attempts")

	// Nothing listens on the API URL: retried within the budget, then refused.
	unreachable, err := gitlab.New(gitlab.Options{BaseURL: "http://127.0.0.1:1/api/v4", Token: "glpat-x",
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	c, base = f.checker(unreachable)
	rep, _ = c.Check(context.Background(), Request{From: "preprod", To: "prod", Base: base})
	wantRefused(t, rep, config.GateSourceHealthy, "cannot evaluate", "connection refused")

	c, base = f.checker(f.client())
	f.gl.SetToken("glpat-rotated")
	rep, _ = c.Check(context.Background(), Request{From: "preprod", To: "prod", Base: base})
	wantRefused(t, rep, config.GateSourceHealthy, "cannot evaluate", "401 unauthorized")
}

// Without a gates block nothing is read and nothing can refuse.
func TestNoGatesConfigured(t *testing.T) {
	f := newFixture(t)
	f.files[".promote.yaml"] = strings.Split(promoteYAML, "gates:")[0]
	f.commit("no gates")
	c, base := f.checker(nil)
	rep, err := c.Check(context.Background(), Request{From: "preprod", To: "prod", Base: base,
		Overrides: map[string]string{config.GateSourceHealthy: "habit"}})
	if err != nil || rep.Err() != nil || len(rep.Results) != 0 || f.gl.Calls("total") != 0 {
		t.Errorf("no gates: %+v %v (GitLab calls %d)", rep, err, f.gl.Calls("total"))
	}
}

// --only limits the apps checked to those of the promoted components (and
// the app-of-apps, for their charts only).
func TestOnlyScopesTheApps(t *testing.T) {
	f := newFixture(t)
	p := f.promotePreprod()
	f.report(p, "success", 3*time.Hour, "backend-preprod", "dlt-root-preprod")
	c, base := f.checker(f.client())
	rep, err := c.Check(context.Background(), Request{From: "preprod", To: "prod", Base: base, Only: []string{"dlt-node.backend"}})
	if err != nil || rep.Err() != nil {
		t.Fatalf("--only dlt-node.backend: %v %v", rep.Err(), err)
	}
	if r := result(rep, config.GateSourceHealthy); !strings.Contains(r.Summary, "2 of 2") {
		t.Errorf("summary %q", r.Summary)
	}
}
