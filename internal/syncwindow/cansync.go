package syncwindow

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gobwas/glob"
)

// ErrInvalid marks windows that cannot be evaluated (bad kind, schedule,
// duration or time zone): a gate refuses rather than guess.
var ErrInvalid = errors.New("invalid sync window")

// App is what window matching needs of an Application.
type App struct {
	Name      string
	Namespace string // destination namespace
	Server    string // destination server
	DestName  string // destination name
}

// Matches returns the windows that apply to app, in order.
func Matches(ws []*Window, app App) []*Window {
	var out []*Window
	for _, w := range ws {
		if w.matches(app) {
			out = append(out, w)
		}
	}
	return out
}

// matches applies the applications, clusters and namespaces lists in that
// order: with the default OR the first list that matches decides; with
// andOperator every list that is set must match.
func (w *Window) matches(app App) bool {
	matched, isSet := false, false
	if len(w.Applications) > 0 {
		isSet = true
		matched = anyGlob(w.Applications, app.Name)
	}
	if w.AndOperator && isSet && !matched {
		return false
	} else if !w.AndOperator && matched {
		return true
	}
	if len(w.Clusters) > 0 {
		isSet = true
		matched = false
		for _, c := range w.Clusters {
			if (app.DestName != "" && globMatch(c, app.DestName)) || (app.Server != "" && globMatch(c, app.Server)) {
				matched = true
				break
			}
		}
	}
	if isSet && w.AndOperator && !matched {
		return false
	} else if !w.AndOperator && matched {
		return true
	}
	if len(w.Namespaces) > 0 {
		matched = anyGlob(w.Namespaces, app.Namespace)
	}
	return matched
}

func anyGlob(patterns []string, v string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return globMatch(p, v) })
}

// globMatch: "*" matches anything; otherwise a glob without separators (so
// "*" also crosses "/"); a pattern that does not compile matches nothing.
func globMatch(pattern, v string) bool {
	if pattern == "*" {
		return true
	}
	g, err := glob.Compile(pattern)
	return err == nil && g.Match(v)
}

func invalid(ws []*Window) error {
	var errs []string
	for _, w := range ws {
		if w.err != nil {
			errs = append(errs, w.ErrWhere()+": "+w.err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %w", strings.Join(errs, "; "), ErrInvalid)
	}
	return nil
}

func canSync(ws []*Window, manual bool, t time.Time) bool {
	if len(ws) == 0 {
		return true
	}
	var activeDeny, activeAllow, inactiveAllow []*Window
	for _, w := range ws {
		switch active := w.ActiveAt(t); {
		case active && w.Kind == Deny:
			activeDeny = append(activeDeny, w)
		case active:
			activeAllow = append(activeAllow, w)
		case w.Kind == Allow:
			inactiveAllow = append(inactiveAllow, w)
		}
	}
	if len(activeDeny) > 0 {
		return manual && allManual(activeDeny)
	}
	if len(activeAllow) > 0 {
		return true
	}
	if len(inactiveAllow) > 0 {
		return manual && allManual(inactiveAllow)
	}
	return true
}

func allManual(ws []*Window) bool {
	for _, w := range ws {
		if !w.ManualSync {
			return false
		}
	}
	return true
}

// Active returns the windows of ws active at t.
func Active(ws []*Window, t time.Time) []*Window {
	var out []*Window
	for _, w := range ws {
		if w.ActiveAt(t) {
			out = append(out, w)
		}
	}
	return out
}
