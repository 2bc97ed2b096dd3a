package syncwindow

import (
	"fmt"
	"sort"
	"time"
)

// Horizon is how far ahead Evaluate looks for the next change: a weekly
// change window is always found, a yearly one is reported as "none within".
const Horizon = 35 * 24 * time.Hour

// maxFires bounds the occurrences generated per window and offset, so a
// "* * * * *" schedule cannot make a gate slow.
const maxFires = 5000

// Verdict is the answer for one app (or a group of apps sharing windows).
type Verdict struct {
	Allowed bool      `json:"allowed"`
	Manual  bool      `json:"manual"` // evaluated as a manual sync
	Active  []*Window `json:"active,omitempty"`
	Windows []*Window `json:"-"` // the windows matching the app
	// Change is when Allowed next flips; zero when it does not within
	// Horizon (or never: no window applies).
	Change time.Time `json:"change,omitzero"`
	// Zone is the time zone to show times in: the first matching window's.
	Zone *time.Location `json:"-"`
}

// Evaluate answers for windows ws (matching one app) at now and finds the
// next instant the answer changes within Horizon.
func Evaluate(ws []*Window, manual bool, now time.Time) (Verdict, error) {
	v := Verdict{Manual: manual, Windows: ws, Zone: time.UTC}
	if err := invalid(ws); err != nil {
		return v, err
	}
	for _, w := range ws {
		if w.TimeZone != "" {
			v.Zone = w.loc
			break
		}
	}
	v.Allowed = canSync(ws, manual, now)
	v.Active = Active(ws, now)
	for _, c := range candidates(ws, now, now.Add(Horizon)) {
		// Occurrences are open intervals: look just after the edge.
		if canSync(ws, manual, c.Add(time.Second)) != v.Allowed {
			v.Change = c
			break
		}
	}
	return v, nil
}

// candidates are the instants in (now, until] where a window of ws opens or
// closes, sorted. Offsets: the zone may change offset within the horizon
// (DST), and each instant is evaluated with the offset in force then, so
// occurrences are generated for every offset the zone takes.
func candidates(ws []*Window, now, until time.Time) []time.Time {
	set := map[time.Time]bool{}
	for _, w := range ws {
		for _, off := range offsets(w, now, until) {
			for _, s := range w.fires(now, until, off, maxFires) {
				for _, c := range []time.Time{s, s.Add(w.dur)} {
					if c.After(now) && !c.After(until) {
						set[c.UTC()] = true
					}
				}
			}
		}
	}
	out := make([]time.Time, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

func offsets(w *Window, from, until time.Time) []time.Duration {
	var out []time.Duration
	for t := from; !t.After(until.Add(24 * time.Hour)); t = t.Add(12 * time.Hour) {
		off := w.offset(t)
		if len(out) == 0 || out[len(out)-1] != off {
			out = append(out, off)
		}
	}
	return out
}

// Summary says in one line what the verdict means, with times in v.Zone.
func (v Verdict) Summary(now time.Time) string {
	if len(v.Windows) == 0 {
		return "no sync window applies: always open"
	}
	state := "closed"
	if v.Allowed {
		state = "open"
	}
	var why string
	switch {
	case len(v.Active) > 0:
		why = "active: " + v.Active[0].String()
		if len(v.Active) > 1 {
			why += fmt.Sprintf(" and %d more", len(v.Active)-1)
		}
	case v.Allowed:
		why = "no window active"
	default:
		why = "outside every allow window"
	}
	next := fmt.Sprintf("no change within %d days", int(Horizon.Hours()/24))
	if !v.Change.IsZero() {
		verb := "closes"
		if !v.Allowed {
			verb = "opens"
		}
		next = fmt.Sprintf("%s %s (in %s)", verb, FormatTime(v.Change, v.Zone), FormatDuration(v.Change.Sub(now)))
	}
	return fmt.Sprintf("%s (%s); %s", state, why, next)
}

// FormatTime shows t in loc: "Wed 2025-01-08 22:00 CET".
func FormatTime(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2006-01-02 15:04 MST")
}

// FormatDuration is a short human duration: "2d3h", "4h5m", "12m".
func FormatDuration(d time.Duration) string {
	d = d.Round(time.Minute)
	days := int(d / (24 * time.Hour))
	d -= time.Duration(days) * 24 * time.Hour
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days > 0:
		return fmt.Sprintf("%dd%dh", days, h)
	case h > 0:
		return fmt.Sprintf("%dh%dm", h, m)
	}
	return fmt.Sprintf("%dm", m)
}
