package gates

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/syncwindow"
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
	// line 10 is the timeZone field, as promote check reports it
	wantRefused(t, rep, config.GateSyncWindow, "cannot evaluate AppProject dlt-prod", "argocd/projects.yaml:10",
		`unknown time zone "Europe/Atlantis"`)
	noProject := strings.Replace(projectsYAML, "name: dlt-prod", "name: dlt-production", 1)
	rep = windowFixture(t, "require", noProject).checkAt(time.Date(2025, 1, 8, 22, 30, 0, 0, time.UTC))
	wantRefused(t, rep, config.GateSyncWindow, "alpha-vault-prod, backend-prod, beta-vault-prod and 1 more: AppProject dlt-prod is not in the repository (looked in argocd/prod/*.yaml, argocd/projects.yaml)")
}

// Two broken windows shared by every prod app: each is reported once, at
// the line of the broken field, the line check reports; the env's window
// is unknown (null), not closed, and says why.
func TestWindowsBrokenOnceAtCheckLines(t *testing.T) {
	broken := strings.Replace(projectsYAML, `schedule: "0 22 * * 3"`, `schedule: "0 22 * * 9"`, 1)
	broken = strings.Replace(broken, "    applications: [\"*\"]\n---", "    applications: [\"*\"]\n  - kind: deny\n    schedule: \"0 0 * * *\"\n"+
		"    duration: 1h\n    timeZone: Europe/Atlantis\n    applications: [\"*\"]\n---", 1)
	f := windowFixture(t, "require", broken)
	c, base := f.checker(nil)
	tree, err := c.Repo.TreeFS(base)
	if err != nil {
		t.Fatal(err)
	}
	apps, err := argo.Discover(tree, c.Cfg, "prod")
	if err != nil || len(apps) != 4 {
		t.Fatalf("apps: %v %v", apps, err)
	}
	ew := Windows(tree, c.Cfg, "prod", apps, f.now)
	if ew.Open != nil || ew.IsOpen() || ew.Reason == "" {
		t.Errorf("open %v, reason %q: want unknown with a reason", ew.Open, ew.Reason)
	}
	projects, _ := syncwindow.Read(tree, []string{"argocd/projects.yaml"})
	findings := syncwindow.Check(projects)
	if len(findings) != 2 {
		t.Fatalf("check findings: %+v", findings)
	}
	lines := strings.Split(f.files["argocd/projects.yaml"], "\n")
	for i, want := range []string{"schedule: \"0 22 * * 9\"", "timeZone: Europe/Atlantis"} {
		at := fmt.Sprintf("argocd/projects.yaml:%d: ", findings[i].Line)
		if got := strings.TrimSpace(lines[findings[i].Line-1]); got != want {
			t.Errorf("check's line %d is %q, want %q", findings[i].Line, got, want)
		}
		if n := strings.Count(ew.Summary, at); n != 1 {
			t.Errorf("%q appears %d times in the summary, want once (check's line):\n%s", at, n, ew.Summary)
		}
	}
	if n := strings.Count(ew.Summary, "cannot evaluate AppProject dlt-prod"); n != 1 || len(ew.Problems) != 1 ||
		!strings.HasPrefix(ew.Summary, "alpha-vault-prod, backend-prod, beta-vault-prod and 1 more: ") {
		t.Errorf("said %d times, %d problems:\n%s", n, len(ew.Problems), ew.Summary)
	}
	data, _ := json.Marshal(ew)
	if !strings.Contains(string(data), `"open":null`) || !strings.Contains(string(data), `"reason":"alpha-vault-prod`) {
		t.Errorf("json: %s", data)
	}
	// The gate refuses, in warn mode too: unknown is not closed.
	rep := f.checkAt(f.now)
	wantRefused(t, rep, config.GateSyncWindow, "argocd/projects.yaml:8: cannot parse schedule")
}

// A missing AppProject leaves the window unknown, not closed; a closed
// app beside an unknown one makes the env closed (false), with the reason.
func TestWindowsOpenUnknownOrClosed(t *testing.T) {
	f := windowFixture(t, "require", "")
	c, base := f.checker(nil)
	tree, _ := c.Repo.TreeFS(base)
	apps, _ := argo.Discover(tree, c.Cfg, "prod")
	friday := time.Date(2025, 1, 10, 9, 0, 0, 0, time.UTC)
	if ew := Windows(tree, c.Cfg, "prod", apps, friday); ew.Open == nil || *ew.Open || ew.Reason != "" {
		t.Errorf("closed: open %v reason %q", ew.Open, ew.Reason)
	}
	other := append([]argo.App(nil), apps...)
	other[0].Project = "dlt-nowhere"
	ew := Windows(tree, c.Cfg, "prod", other, friday)
	if ew.Open == nil || *ew.Open || !strings.Contains(ew.Reason, "AppProject dlt-nowhere is not in the repository") {
		t.Errorf("closed and unknown: open %v reason %q", ew.Open, ew.Reason)
	}
	wed := time.Date(2025, 1, 8, 22, 30, 0, 0, time.UTC)
	if ew := Windows(tree, c.Cfg, "prod", other, wed); ew.Open != nil || ew.Reason == "" {
		t.Errorf("open and unknown: open %v reason %q", ew.Open, ew.Reason)
	}
	if ew := Windows(tree, c.Cfg, "prod", apps, wed); ew.Open == nil || !*ew.Open {
		t.Errorf("open: %v", ew.Open)
	}
}
