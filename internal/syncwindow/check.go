package syncwindow

import (
	"fmt"
	"time"
)

// Check lists the findings of projects' windows: entries Argo CD rejects
// or misreads (kind, schedule, duration, time zone), schedules that never
// fire (Argo CD then treats the window as always active), and deny windows
// that are active at every instant, which make every allow window of the
// project useless for the syncs they do not let through.
func Check(projects []*Project) []Finding {
	var out []Finding
	for _, p := range projects {
		for _, w := range p.Windows {
			out = append(out, checkWindow(w)...)
		}
		out = append(out, alwaysDeny(p)...)
	}
	return out
}

func checkWindow(w *Window) []Finding {
	f := func(line int, format string, args ...any) []Finding {
		if line == 0 {
			line = w.Line
		}
		return []Finding{{Rule: RuleInvalid, Project: w.Project, File: w.File, Line: line,
			Message: fmt.Sprintf("AppProject %s: sync window: "+format, append([]any{w.Project}, args...)...)}}
	}
	if w.err != nil {
		return f(w.ErrLine(), "%v", w.err)
	}
	if w.dur <= 0 {
		return f(w.durationLine, "duration %q is not positive: the window is never active", w.Duration)
	}
	if len(w.Description) > 255 {
		return f(w.Line, "description is %d characters; Argo CD allows 255", len(w.Description))
	}
	if w.sched.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return []Finding{{Rule: RuleNeverFires, Project: w.Project, File: w.File, Line: nonZero(w.scheduleLine, w.Line),
			Message: fmt.Sprintf("AppProject %s: schedule %q never fires; Argo CD then treats the %s window as always active",
				w.Project, w.Schedule, w.Kind)}}
	}
	return nil
}

// alwaysDeny finds deny windows without manualSync whose occurrences
// overlap back to back (duration at least the longest gap between two
// fires), e.g. "0 0 * * *" for 24h: active at every instant, so no sync
// of the apps they match is ever allowed, whatever the allow windows say.
func alwaysDeny(p *Project) []Finding {
	var out []Finding
	var allow *Window
	for _, w := range p.Windows {
		if w.Kind == Allow && w.err == nil {
			allow = w
			break
		}
	}
	for _, w := range p.Windows {
		if w.Kind != Deny || w.err != nil || w.ManualSync || !coversAllTime(w) {
			continue
		}
		msg := fmt.Sprintf("AppProject %s: deny window %q for %s is active around the clock and has no manualSync: "+
			"Argo CD lets an active deny window win, so no app it matches can ever sync", p.Name, w.Schedule, w.Duration)
		if allow != nil {
			msg += fmt.Sprintf(" (the allow window at %s never takes effect; allow windows alone already deny every other time)", allow.Where())
		}
		out = append(out, Finding{Rule: RuleAlwaysDeny, Project: p.Name, File: w.File, Line: w.Line, Message: msg})
	}
	return out
}

// coversAllTime reports whether consecutive occurrences touch or overlap
// over two years (a leap day included), in UTC. Each step jumps to the
// first fire at or after the end of the current occurrence when there is
// one exactly there, else walks fire by fire. It gives up (false: no
// finding) after 10,000 steps, so a dense schedule cannot slow check down.
func coversAllTime(w *Window) bool {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(2, 0, 0)
	s := w.sched.Next(start.Add(-w.dur))
	if s.IsZero() || s.After(start) {
		return false
	}
	for range 10_000 {
		if s.After(end) {
			return true
		}
		if f := w.sched.Next(s.Add(w.dur - time.Second)); !f.IsZero() && f.Equal(s.Add(w.dur)) {
			s = f
			continue
		}
		next := w.sched.Next(s)
		if next.IsZero() || next.Sub(s) > w.dur {
			return false
		}
		s = next
	}
	return false
}

func nonZero(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}
