// Package syncwindow reads the syncWindows of Argo CD AppProjects from a
// repository and answers, for an injected instant, what Argo CD would
// answer: may this app sync now, which windows are active, and when does
// that change.
//
// The semantics are Argo CD's, re-stated here (not its code):
//   - a schedule is a 5-field cron expression (minute hour dom month dow)
//     parsed by github.com/robfig/cron/v3, the library Argo CD uses;
//   - a window is active at t when a fire S of its schedule lies strictly
//     between t-duration and t (so exactly at S it is not yet active, and
//     exactly at S+duration it no longer is);
//   - the schedule runs on the wall clock of timeZone, taken as the zone's
//     UTC offset at the instant evaluated (Argo CD takes it at "now"): on a
//     DST change day a window ends at start+duration on the new wall clock,
//     one hour earlier or later in real time;
//   - an unknown timeZone is UTC for Argo CD (with a warning); a schedule
//     that never fires yields the zero time, which is "before now": such a
//     window is always active;
//   - an active deny window wins: a sync is refused, unless it is manual and
//     every active deny window has manualSync;
//   - else an active allow window permits it;
//   - else, if there are allow windows (all inactive), a sync is refused
//     unless it is manual and every inactive allow window has manualSync;
//   - else (no window matches the app) it is permitted.
//
// A window applies to an app when one of its applications, clusters or
// namespaces globs matches (or all of the set lists, with andOperator).
package syncwindow

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
)

// Kinds of window.
const (
	Allow = "allow"
	Deny  = "deny"
)

// Window is one entry of an AppProject's spec.syncWindows.
type Window struct {
	Kind         string   `json:"kind"`
	Schedule     string   `json:"schedule"`
	Duration     string   `json:"duration"`
	TimeZone     string   `json:"timeZone,omitempty"`
	Applications []string `json:"applications,omitempty"`
	Namespaces   []string `json:"namespaces,omitempty"`
	Clusters     []string `json:"clusters,omitempty"`
	ManualSync   bool     `json:"manualSync,omitempty"`
	AndOperator  bool     `json:"andOperator,omitempty"`
	Description  string   `json:"description,omitempty"`

	Project string `json:"project"`
	File    string `json:"file"`
	Line    int    `json:"line"` // the window's entry

	// Lines of the fields, for findings; 0 when absent.
	scheduleLine, durationLine, zoneLine, kindLine int

	sched   cron.Schedule
	dur     time.Duration
	loc     *time.Location
	err     error // why the window cannot be evaluated; nil when it can
	errLine int   // the line of the field err is about
}

// parser is Argo CD's: five fields, no seconds, no descriptors.
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// compile parses schedule, duration and zone once. Problems are kept in
// w.err (and reported as findings by Check), never panicked on.
func (w *Window) compile() {
	w.err = nil
	fail := func(line int, err error) {
		w.err, w.errLine = err, line
		if line == 0 {
			w.errLine = w.Line
		}
	}
	if w.Kind != Allow && w.Kind != Deny {
		fail(w.kindLine, fmt.Errorf("kind %q must be allow or deny", w.Kind))
		return
	}
	sched, err := parseSchedule(w.Schedule)
	if err != nil {
		fail(w.scheduleLine, fmt.Errorf("cannot parse schedule %q: %v", w.Schedule, err))
		return
	}
	w.sched = sched
	d, err := time.ParseDuration(w.Duration)
	if err != nil {
		fail(w.durationLine, fmt.Errorf("cannot parse duration %q: %v", w.Duration, err))
		return
	}
	w.dur = d
	w.loc = time.UTC
	if w.TimeZone != "" {
		loc, err := time.LoadLocation(w.TimeZone)
		if err != nil {
			// Argo CD falls back to UTC here; we refuse to guess what
			// the author meant, so the window cannot be evaluated.
			fail(w.zoneLine, fmt.Errorf("unknown time zone %q (Argo CD would use UTC)", w.TimeZone))
			return
		}
		w.loc = loc
	}
}

// parseSchedule guards against a panic in the cron parser on hostile input:
// a malformed window must be a finding, not a crash.
func parseSchedule(s string) (sched cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			sched, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return parser.Parse(s)
}

// Err says why the window cannot be evaluated, or nil.
func (w *Window) Err() error { return w.err }

// ErrLine is the line of the field Err is about (the entry's line when
// that field is absent): what check reports, and what a gate or status
// names, so both point at the same line.
func (w *Window) ErrLine() int { return w.errLine }

// ErrWhere is file:ErrLine.
func (w *Window) ErrWhere() string { return fmt.Sprintf("%s:%d", w.File, w.errLine) }

// offset is the zone's UTC offset at t.
func (w *Window) offset(t time.Time) time.Duration {
	_, off := t.In(w.loc).Zone()
	return time.Duration(off) * time.Second
}

// ActiveAt reports whether the window is active at t (see the package doc).
// A window that cannot be evaluated is never active; callers check Err.
func (w *Window) ActiveAt(t time.Time) bool {
	if w.err != nil {
		return false
	}
	t = t.UTC()
	off := w.offset(t)
	next := w.sched.Next(t.Add(off - w.dur))
	return next.Before(t.Add(off))
}

// fires lists the real instants at which the window opens, from the first
// that could still be active at from up to until, at most limit of them,
// using the zone offset off. A schedule that never fires gives none.
func (w *Window) fires(from, until time.Time, off time.Duration, limit int) []time.Time {
	var out []time.Time
	x := from.UTC().Add(off - w.dur)
	end := until.UTC().Add(off)
	for range limit {
		s := w.sched.Next(x)
		if s.IsZero() || s.After(end) {
			break
		}
		out = append(out, s.Add(-off))
		x = s
	}
	return out
}

// Span is one occurrence of a window: open from Start to End (real time).
type Span struct {
	Start, End time.Time
}

// String names the window for messages: "allow 0 22 * * 3 (4h, Europe/Berlin)".
func (w *Window) String() string {
	tz := w.TimeZone
	if tz == "" {
		tz = "UTC"
	}
	return fmt.Sprintf("%s %q for %s (%s)", w.Kind, w.Schedule, w.Duration, tz)
}

// Where is file:line of the window.
func (w *Window) Where() string { return fmt.Sprintf("%s:%d", w.File, w.Line) }
