package gates

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

func windowFixture(t *testing.T, mode, projects string) *fixture {
	f := newFixture(t)
	f.files[".promote.yaml"] = strings.Replace(promoteYAML, "{sourceHealthy: true, minSoak: 2h, syncWindow: require}", "{syncWindow: "+mode+"}", 1)
	if projects != "" {
		f.files["argocd/projects.yaml"] = projects
	}
	f.commit("window gate only")
	return f
}

func (f *fixture) checkAt(now time.Time) *Report {
	f.t.Helper()
	c, base := f.checker(nil) // the window gate needs no GitLab
	c.Now = func() time.Time { return now }
	rep, err := c.Check(context.Background(), Request{From: "preprod", To: "prod", Base: base})
	if err != nil {
		f.t.Fatal(err)
	}
	return rep
}

func TestSyncWindowGate(t *testing.T) {
	f := windowFixture(t, "require", "")
	berlin, _ := time.LoadLocation("Europe/Berlin")
	inside := time.Date(2025, 1, 8, 23, 30, 0, 0, berlin)
	rep := f.checkAt(inside)
	r := result(rep, config.GateSyncWindow)
	if !r.Passed || rep.Err() != nil || !strings.Contains(r.Summary, "AppProject dlt-prod: open (active: allow \"0 22 * * 3\" for 4h (Europe/Berlin)); closes Thu 2025-01-09 02:00 CET (in 2h30m) (4 apps)") {
		t.Errorf("inside: %+v", r)
	}
	outside := time.Date(2025, 1, 10, 9, 0, 0, 0, berlin) // Friday
	rep = f.checkAt(outside)
	wantRefused(t, rep, config.GateSyncWindow, "prod closed for alpha-vault-prod, backend-prod, beta-vault-prod and 1 more",
		"outside every allow window", "opens Wed 2025-01-15 22:00 CET (in 5d13h)")
	// The same window across the spring DST change: 22:00 CEST.
	rep = f.checkAt(time.Date(2025, 3, 28, 9, 0, 0, 0, berlin))
	wantRefused(t, rep, config.GateSyncWindow, "opens Wed 2025-04-02 22:00 CEST")
}

func TestSyncWindowWarn(t *testing.T) {
	f := windowFixture(t, "warn", "")
	rep := f.checkAt(time.Date(2025, 1, 10, 8, 0, 0, 0, time.UTC))
	r := result(rep, config.GateSyncWindow)
	if rep.Err() != nil || !r.Passed || !r.Warning || !strings.Contains(r.Summary, "closed") {
		t.Errorf("warn outside the window: %+v %v", r, rep.Err())
	}
}

// A deny window with manualSync lets the manual syncs of prod through;
// without it the deny wins. Prod apps have no automated sync.
func TestSyncWindowDenyManualSync(t *testing.T) {
	deny := func(manual string) string {
		return strings.Replace(projectsYAML, "  - kind: allow\n    schedule: \"0 22 * * 3\"\n    duration: 4h\n",
			"  - kind: deny\n    schedule: \"0 0 * * *\"\n    duration: 24h\n    manualSync: "+manual+"\n", 1)
	}
	wed := time.Date(2025, 1, 8, 23, 30, 0, 0, time.UTC)
	if rep := windowFixture(t, "require", deny("true")).checkAt(wed); rep.Err() != nil {
		t.Errorf("deny with manualSync, manual app: %v", rep.Err())
	}
	wantRefused(t, windowFixture(t, "require", deny("false")).checkAt(wed), config.GateSyncWindow,
		"closed", "active: deny \"0 0 * * *\" for 24h", "no change within 35 days")
}

func TestSyncWindowCannotEvaluate(t *testing.T) {
	bad := strings.Replace(projectsYAML, "Europe/Berlin", "Europe/Atlantis", 1)
	rep := windowFixture(t, "warn", bad).checkAt(time.Date(2025, 1, 8, 22, 30, 0, 0, time.UTC))
	wantRefused(t, rep, config.GateSyncWindow, "cannot evaluate AppProject dlt-prod", "argocd/projects.yaml:7",
		`unknown time zone "Europe/Atlantis"`)
	noProject := strings.Replace(projectsYAML, "name: dlt-prod", "name: dlt-production", 1)
	rep = windowFixture(t, "require", noProject).checkAt(time.Date(2025, 1, 8, 22, 30, 0, 0, time.UTC))
	wantRefused(t, rep, config.GateSyncWindow, "alpha-vault-prod, backend-prod, beta-vault-prod and 1 more: AppProject dlt-prod is not in the repository (looked in argocd/prod/*.yaml, argocd/projects.yaml)")
}
