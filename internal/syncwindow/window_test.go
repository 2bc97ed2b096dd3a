package syncwindow

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// win compiles one window for a test.
func win(t *testing.T, kind, schedule, duration, zone string) *Window {
	t.Helper()
	w := &Window{Kind: kind, Schedule: schedule, Duration: duration, TimeZone: zone,
		Applications: []string{"*"}, Project: "p", File: "f.yaml", Line: 1}
	w.compile()
	if w.err != nil {
		t.Fatalf("window %s: %v", w, w.err)
	}
	return w
}

func at(t *testing.T, zone, s string) time.Time {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	v, err := time.ParseInLocation("2006-01-02 15:04:05", s, loc)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The prod change window of the users' spec (Wednesday 22:00 for 4h), in
// Berlin time. 2025-01-08 is a Wednesday.
func TestActiveAllowWindow(t *testing.T) {
	w := win(t, Allow, "0 22 * * 3", "4h", "Europe/Berlin")
	for _, c := range []struct {
		when string
		want bool
	}{
		{"2025-01-08 21:59:59", false},
		{"2025-01-08 22:00:00", false}, // an occurrence is open only after its start
		{"2025-01-08 22:00:01", true},
		{"2025-01-09 01:59:59", true},
		{"2025-01-09 02:00:00", false}, // and closed at start+duration
		{"2025-01-07 23:00:00", false}, // Tuesday
		{"2025-01-15 23:30:00", true},  // next Wednesday
	} {
		if got := w.ActiveAt(at(t, "Europe/Berlin", c.when)); got != c.want {
			t.Errorf("%s Berlin: active=%v, want %v", c.when, got, c.want)
		}
	}
}

// The same schedule means a different instant in each zone; no zone is UTC.
func TestActiveTimeZones(t *testing.T) {
	ny := win(t, Allow, "0 9 * * *", "1h", "America/New_York")
	utc := win(t, Allow, "0 9 * * *", "1h", "")
	instant := at(t, "UTC", "2025-01-08 14:30:00") // 09:30 in New York (EST, UTC-5)
	if !ny.ActiveAt(instant) || utc.ActiveAt(instant) {
		t.Errorf("14:30 UTC: New York window active=%v (want true), UTC window active=%v (want false)",
			ny.ActiveAt(instant), utc.ActiveAt(instant))
	}
	summer := at(t, "UTC", "2025-07-08 13:30:00") // 09:30 EDT (UTC-4)
	if !ny.ActiveAt(summer) {
		t.Error("13:30 UTC in July: New York window should be active (EDT)")
	}
	// The instant's own zone does not matter, only the window's.
	if !ny.ActiveAt(instant.In(time.FixedZone("X", 7*3600))) {
		t.Error("activity changed with the zone of the instant passed in")
	}
}

// DST edges follow Argo CD: the schedule runs on the wall clock with the
// zone offset in force at the evaluated instant.
func TestActiveDSTSpringForward(t *testing.T) {
	// Berlin 2025-03-30: 02:00 CET jumps to 03:00 CEST.
	w := win(t, Allow, "0 1 * * *", "3h", "Europe/Berlin")
	cases := []struct {
		utc  string
		want bool
	}{
		{"2025-03-30 00:00:01", true},  // 01:00:01 CET: opened
		{"2025-03-30 01:30:00", true},  // 03:30 CEST
		{"2025-03-30 01:59:59", true},  // 03:59:59 CEST
		{"2025-03-30 02:00:01", false}, // 04:00:01 CEST: closed after 2h of real time, 3h of wall clock
	}
	for _, c := range cases {
		if got := w.ActiveAt(at(t, "UTC", c.utc)); got != c.want {
			t.Errorf("%s UTC: active=%v, want %v", c.utc, got, c.want)
		}
	}
	// A window starting in the skipped hour (02:30) still opens: from the
	// jump (03:00 CEST) until 03:30 CEST.
	skipped := win(t, Allow, "30 2 * * *", "1h", "Europe/Berlin")
	for _, c := range []struct {
		utc  string
		want bool
	}{
		{"2025-03-30 00:59:59", false}, // 01:59:59 CET
		{"2025-03-30 01:00:01", true},  // 03:00:01 CEST
		{"2025-03-30 01:29:59", true},  // 03:29:59 CEST
		{"2025-03-30 01:30:01", false}, // 03:30:01 CEST
	} {
		if got := skipped.ActiveAt(at(t, "UTC", c.utc)); got != c.want {
			t.Errorf("skipped-hour window at %s UTC: active=%v, want %v", c.utc, got, c.want)
		}
	}
}

func TestActiveDSTFallBack(t *testing.T) {
	// Berlin 2025-10-26: 03:00 CEST falls back to 02:00 CET.
	w := win(t, Allow, "0 1 * * *", "3h", "Europe/Berlin")
	for _, c := range []struct {
		utc  string
		want bool
	}{
		{"2025-10-25 23:00:01", true},  // 01:00:01 CEST
		{"2025-10-26 02:59:59", true},  // 03:59:59 CET: 4h of real time
		{"2025-10-26 03:00:01", false}, // 04:00:01 CET
	} {
		if got := w.ActiveAt(at(t, "UTC", c.utc)); got != c.want {
			t.Errorf("%s UTC: active=%v, want %v", c.utc, got, c.want)
		}
	}
}

// A schedule that never fires (30 February) makes robfig/cron return the
// zero time, which Argo CD compares as "before now": always active.
func TestNeverFiringScheduleIsAlwaysActive(t *testing.T) {
	w := win(t, Deny, "0 0 30 2 *", "1h", "")
	if !w.ActiveAt(at(t, "UTC", "2025-06-01 12:00:00")) {
		t.Error("a never-firing window should be active, as in Argo CD")
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct{ kind, sched, dur, zone, want string }{
		{"maybe", "0 22 * * 3", "4h", "", `kind "maybe" must be allow or deny`},
		{"allow", "0 22 * *", "4h", "", `cannot parse schedule "0 22 * *"`},
		{"allow", "@weekly", "4h", "", `cannot parse schedule "@weekly"`},
		{"allow", "0 25 * * 3", "4h", "", `cannot parse schedule "0 25 * * 3"`},
		{"allow", "0 22 * * 3", "4 hours", "", `cannot parse duration "4 hours"`},
		{"allow", "0 22 * * 3", "4h", "Mars/Olympus", `unknown time zone "Mars/Olympus" (Argo CD would use UTC)`},
	} {
		w := &Window{Kind: c.kind, Schedule: c.sched, Duration: c.dur, TimeZone: c.zone, File: "p.yaml", Line: 3}
		w.compile()
		if w.err == nil || !strings.Contains(w.err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c, w.err, c.want)
		}
		if _, err := CanSync([]*Window{w}, true, time.Now()); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "p.yaml:3") {
			t.Errorf("CanSync with a broken window: %v, want ErrInvalid naming p.yaml:3", err)
		}
	}
}
