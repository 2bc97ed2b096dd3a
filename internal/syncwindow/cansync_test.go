package syncwindow

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestCanSync(t *testing.T) {
	allowWed := func() *Window { return win(t, Allow, "0 22 * * 3", "4h", "Europe/Berlin") }
	denyNight := func(manual bool) *Window {
		w := win(t, Deny, "0 1 * * *", "2h", "Europe/Berlin")
		w.ManualSync = manual
		return w
	}
	inAllow := at(t, "Europe/Berlin", "2025-01-08 23:00:00") // Wednesday, inside the allow window
	outside := at(t, "Europe/Berlin", "2025-01-08 12:00:00") // Wednesday noon
	inDeny := at(t, "Europe/Berlin", "2025-01-09 01:30:00")  // inside both
	manualAllow := allowWed()
	manualAllow.ManualSync = true
	for _, c := range []struct {
		name   string
		ws     []*Window
		manual bool
		t      time.Time
		want   bool
	}{
		{"no window", nil, false, outside, true},
		{"inside allow", []*Window{allowWed()}, false, inAllow, true},
		{"outside allow, auto", []*Window{allowWed()}, false, outside, false},
		{"outside allow, manual without manualSync", []*Window{allowWed()}, true, outside, false},
		{"outside allow, manual with manualSync", []*Window{manualAllow}, true, outside, true},
		{"deny wins over an active allow", []*Window{allowWed(), denyNight(false)}, false, inDeny, false},
		{"deny with manualSync lets a manual sync through", []*Window{allowWed(), denyNight(true)}, true, inDeny, true},
		{"deny with manualSync still blocks auto-sync", []*Window{allowWed(), denyNight(true)}, false, inDeny, false},
		{"inactive deny alone permits", []*Window{denyNight(false)}, false, outside, true},
		{"allow active, deny inactive", []*Window{allowWed(), denyNight(false)}, false, inAllow, true},
	} {
		got, err := CanSync(c.ws, c.manual, c.t)
		if err != nil || got != c.want {
			t.Errorf("%s: CanSync=%v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

func TestMatches(t *testing.T) {
	app := App{Name: "dlt-node-alpha-backend-prod", Namespace: "dlt-node-alpha", Server: "https://kubernetes.default.svc"}
	mk := func(apps, ns, clusters []string, and bool) *Window {
		return &Window{Kind: Allow, Applications: apps, Namespaces: ns, Clusters: clusters, AndOperator: and}
	}
	for _, c := range []struct {
		name string
		w    *Window
		want bool
	}{
		{"star", mk([]string{"*"}, nil, nil, false), true},
		{"glob on name", mk([]string{"dlt-node-*-backend-prod"}, nil, nil, false), true},
		{"other name", mk([]string{"dlt-backup-prod"}, nil, nil, false), false},
		{"no selector matches nothing", mk(nil, nil, nil, false), false},
		{"namespace", mk(nil, []string{"dlt-node-*"}, nil, false), true},
		{"cluster by server", mk(nil, nil, []string{"https://kubernetes.default.svc"}, false), true},
		{"OR: name misses, namespace hits", mk([]string{"other"}, []string{"dlt-node-alpha"}, nil, false), true},
		{"AND: name hits, namespace misses", mk([]string{"*"}, []string{"other"}, nil, true), false},
		{"AND: name and namespace hit", mk([]string{"*backend*"}, []string{"dlt-*"}, nil, true), true},
		{"AND: name hits, cluster misses", mk([]string{"*"}, nil, []string{"in-cluster"}, true), false},
		{"bad glob matches nothing", mk([]string{"[abc"}, nil, nil, false), false},
	} {
		if got := c.w.matches(app); got != c.want {
			t.Errorf("%s: matches=%v, want %v", c.name, got, c.want)
		}
	}
}

// Evaluate finds the next change, across a DST change too: the window
// opens at 22:00 Berlin wall time whatever the offset then.
func TestEvaluateNextChange(t *testing.T) {
	ws := []*Window{win(t, Allow, "0 22 * * 3", "4h", "Europe/Berlin")}
	monday := at(t, "Europe/Berlin", "2025-01-06 10:00:00")
	v, err := Evaluate(ws, true, monday)
	if err != nil || v.Allowed {
		t.Fatalf("Monday: %+v, %v; want closed", v, err)
	}
	if want := at(t, "Europe/Berlin", "2025-01-08 22:00:00"); !v.Change.Equal(want) {
		t.Errorf("opens %s, want %s", v.Change, want)
	}
	if got := v.Summary(monday); !strings.Contains(got, "closed (outside every allow window); opens Wed 2025-01-08 22:00 CET (in 2d12h)") {
		t.Errorf("summary: %s", got)
	}
	inside := at(t, "Europe/Berlin", "2025-01-08 23:00:00")
	v, _ = Evaluate(ws, true, inside)
	if !v.Allowed || !v.Change.Equal(at(t, "Europe/Berlin", "2025-01-09 02:00:00")) || len(v.Active) != 1 {
		t.Errorf("inside: %+v, want open until Thu 02:00", v)
	}
	// The Wednesday after the spring-forward change (2025-03-30).
	before := at(t, "Europe/Berlin", "2025-03-28 12:00:00")
	v, _ = Evaluate(ws, true, before)
	if want := at(t, "Europe/Berlin", "2025-04-02 22:00:00"); !v.Change.Equal(want) {
		t.Errorf("across DST: opens %s, want %s (22:00 CEST)", v.Change.In(want.Location()), want)
	}
}

// The spec's prod windows: an allow window plus a deny window that covers
// the whole day. The deny window wins at every instant.
func TestSpecDenyAllDayBlocksEverything(t *testing.T) {
	ws := []*Window{win(t, Allow, "0 22 * * 3", "4h", ""), win(t, Deny, "0 0 * * *", "24h", "")}
	for _, manual := range []bool{false, true} {
		v, err := Evaluate(ws, manual, at(t, "UTC", "2025-01-08 23:00:00"))
		if err != nil || v.Allowed || !v.Change.IsZero() {
			t.Errorf("manual=%v inside the allow window: %+v, %v; want closed with no change ahead", manual, v, err)
		}
	}
}

func TestReadAndCheck(t *testing.T) {
	data, err := os.ReadFile("testdata/projects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"argocd/projects.yaml": {Data: data}, "bad.yaml": {Data: []byte("kind: AppProject\nmetadata: {name: x}\nspec: {syncWindows: [\n")}}
	projects, findings := Read(fsys, []string{"argocd/projects.yaml", "bad.yaml", "missing.yaml"})
	if len(projects) != 3 {
		t.Fatalf("projects: %d, want 3", len(projects))
	}
	if p := ByName(projects)["dlt-prod"]; p == nil || len(p.Windows) != 1 || p.Windows[0].Line != 27 || p.Windows[0].TimeZone != "Europe/Berlin" {
		t.Errorf("dlt-prod: %+v", p)
	}
	var got []string
	for _, f := range append(findings, Check(projects)...) {
		got = append(got, f.Rule+" "+f.File+":"+strconv.Itoa(f.Line))
		if f.Line == 0 && f.Rule != RuleUnreadable {
			t.Errorf("finding without a line: %+v", f)
		}
	}
	want := []string{
		"sync-window-unreadable bad.yaml:0",
		"sync-window-unreadable missing.yaml:0",
		"sync-window-always-deny argocd/projects.yaml:15",
		"sync-window-invalid argocd/projects.yaml:46",     // schedule: day of week 8
		"sync-window-invalid argocd/projects.yaml:52",     // timeZone
		"sync-window-invalid argocd/projects.yaml:54",     // kind
		"sync-window-invalid argocd/projects.yaml:59",     // duration
		"sync-window-never-fires argocd/projects.yaml:62", // 31 February
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range Check(projects) {
		if f.Rule == RuleAlwaysDeny && !strings.Contains(f.Message, "allow window at argocd/projects.yaml:9 never takes effect") {
			t.Errorf("always-deny message: %s", f.Message)
		}
	}
}

// CanSync answers whether windows ws (those matching one app) let a sync
// start at t. manual is a sync an operator starts (an app without
// automated sync). It fails when a window cannot be evaluated.
func CanSync(ws []*Window, manual bool, t time.Time) (bool, error) {
	if err := invalid(ws); err != nil {
		return false, err
	}
	return canSync(ws, manual, t), nil
}
