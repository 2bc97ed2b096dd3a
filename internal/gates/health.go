package gates

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
	"github.com/gitops-promote/gitops-promote/internal/syncwindow"
)

// seen is one status of an app, on one commit of the walk.
type seen struct {
	sha  string
	st   gitlab.CommitStatus
	diff []string // how that commit's values (or the reported charts) differ from those promoted
}

func (o seen) good() bool { return o.st.Status == "success" && len(o.diff) == 0 }

// when is when the status reached its state: GitLab moves a pending or
// running status to its final state in place, keeping created_at and
// setting finished_at.
func (o seen) when() time.Time {
	if !o.st.FinishedAt.IsZero() {
		return o.st.FinishedAt
	}
	return o.st.CreatedAt
}

// appHealth collects one app's statuses, newest commit first.
type appHealth struct {
	name    string
	want    Values
	seen    []seen
	decided bool // the walk needs no older status of this app
}

// Health reads the statuses of env's apps along the first-parent history
// from base: the newest commit first, one GitLab listing per commit, at
// most lookback commits, and no further than every app needs. want holds
// the values each app must be healthy on (by app name).
type Health struct {
	Apps     map[string]*appHealth
	Walked   int    // commits listed
	Ended    string // why the walk stopped before every app was decided, "" if it did not
	Base     string
	Lookback int
}

// readHealth walks statuses for the apps of want. minSoak > 0 keeps an
// app's walk going until its healthy run is at least that old.
func (c *Checker) readHealth(ctx context.Context, env string, base plumbing.Hash, want map[string]Values,
	minSoak time.Duration, lookback int) (*Health, error) {
	h := &Health{Apps: map[string]*appHealth{}, Base: base.String(), Lookback: lookback}
	for name, v := range want {
		h.Apps[name] = &appHealth{name: name, want: v}
	}
	snaps := map[string]*Snapshot{}
	snapErr := map[string]error{}
	snapAt := func(sha string) (*Snapshot, error) {
		if s, ok := snaps[sha]; ok || snapErr[sha] != nil {
			return s, snapErr[sha]
		}
		tree, err := c.Repo.TreeFS(plumbing.NewHash(sha))
		if err == nil {
			snaps[sha], err = Snap(tree, c.Cfg, env)
		}
		snapErr[sha] = err
		return snaps[sha], err
	}
	cutoff := c.now().Add(-minSoak)
	var logErr error
	shas := iter.Seq[string](func(yield func(string) bool) {
		logErr = c.Repo.FirstParentLog(base, lookback, func(e git.LogEntry) bool { return yield(e.Hash.String()) })
	})
	undecided := len(h.Apps)
	n, err := gitlab.WalkStatuses(ctx, c.GitLab, c.Project, shas, lookback, func(sha string, sts []gitlab.CommitStatus) bool {
		for _, st := range sts {
			a := h.Apps[strings.TrimPrefix(st.Name, StatusPrefix)]
			if a == nil || a.decided || !strings.HasPrefix(st.Name, StatusPrefix) {
				continue
			}
			o := seen{sha: sha, st: st}
			if st.Status == "success" {
				o.diff = valuesDiff(a, sha, st, snapAt)
			}
			a.seen = append(a.seen, o)
			if !o.good() || minSoak == 0 || !o.when().After(cutoff) {
				a.decided = true
				undecided--
			}
		}
		return undecided > 0
	})
	h.Walked = n
	if err != nil {
		return nil, err
	}
	// The walk goes by commit; what happened last goes by time (Argo CD
	// can report on an older commit after a newer one, e.g. a rollback).
	for _, a := range h.Apps {
		slices.SortStableFunc(a.seen, func(x, y seen) int { return y.when().Compare(x.when()) })
	}
	switch {
	case undecided == 0:
	case errors.Is(logErr, git.ErrShallow):
		h.Ended = fmt.Sprintf("the history of this clone ends after %d commits (%v); fetch more (GIT_DEPTH: 0)", n, logErr)
	case logErr != nil:
		return nil, logErr
	case n >= lookback:
		h.Ended = fmt.Sprintf("read the statuses of the last %d commits, the lookback", n)
	default:
		h.Ended = fmt.Sprintf("read the whole history (%d commits)", n)
	}
	return h, nil
}

// valuesDiff compares the values at the status's commit, and the charts
// the status says are running, with those promoted.
func valuesDiff(a *appHealth, sha string, st gitlab.CommitStatus, snapAt func(string) (*Snapshot, error)) []string {
	s, err := snapAt(sha)
	if err != nil {
		return []string{fmt.Sprintf("values unreadable at %s: %v", short(sha), oneLine(err.Error()))}
	}
	got, ok := s.Values[a.name]
	if !ok {
		return []string{fmt.Sprintf("no app %s in %s at that commit", a.name, s.Env)}
	}
	d := diff(a.want, got)
	if running := chartsInDescription(st.Description); running != nil {
		for k, want := range a.want {
			if r, ok := running[k]; ok && strings.HasPrefix(k, "chart ") && r != want {
				d = append(d, fmt.Sprintf("%s %s running (promoting %s)", k, r, want))
			}
		}
	}
	return d
}

// health evaluates sourceHealthy and, when configured, minSoak.
func (c *Checker) health(ctx context.Context, req Request, tree fs.FS, g config.Gate) []Result {
	hr := Result{Gate: config.GateSourceHealthy, Env: req.To}
	sr := Result{Gate: config.GateMinSoak, Env: req.To}
	refuse := func(msg string) []Result {
		hr.Summary, hr.Problems = "cannot evaluate: "+msg, []Problem{{Kind: "cannot-evaluate", Message: "cannot evaluate: " + msg}}
		if g.MinSoak == 0 {
			return []Result{hr}
		}
		sr.Summary, sr.Problems = hr.Summary, hr.Problems
		return []Result{hr, sr}
	}
	if c.GitLab == nil {
		return refuse("GitLab is not configured (" + cmpOr(c.NoGitLab, "no API client") + ")")
	}
	snap, err := Snap(tree, c.Cfg, req.From)
	if err != nil {
		at := req.Source
		if at.IsZero() {
			at = req.Base
		}
		return refuse(fmt.Sprintf("reading %s at %s: %s", req.From, short(at.String()), oneLine(err.Error())))
	}
	want := map[string]Values{}
	for _, a := range snap.Apps {
		if snap.inScope(a.Name, req.Only) {
			want[a.Name] = scopeCharts(c.Cfg, snap.Values[a.Name], req.Only)
		}
	}
	if len(want) == 0 {
		return refuse(fmt.Sprintf("no Application of %s to check", req.From))
	}
	h, err := c.readHealth(ctx, req.From, req.statusStart(), want, g.MinSoak, g.Lookback)
	if err != nil {
		return refuse(oneLine(err.Error()))
	}
	now := c.now()
	healthy := 0
	for _, name := range sortedApps(h.Apps) {
		a := h.Apps[name]
		if p, ok := a.healthProblem(h); ok {
			hr.Problems = append(hr.Problems, p)
			continue
		}
		healthy++
		if p, ok := a.soakProblem(h, g.MinSoak, now); ok {
			sr.Problems = append(sr.Problems, p)
		}
	}
	hr.Passed = len(hr.Problems) == 0
	hr.Summary = fmt.Sprintf("%d of %d %s apps healthy on the promoted values (statuses of %d commits from %s)",
		healthy, len(h.Apps), req.From, h.Walked, short(h.Base))
	out := []Result{hr}
	if g.MinSoak > 0 {
		sr.Passed = len(sr.Problems) == 0
		sr.Summary = fmt.Sprintf("%d of %d healthy %s apps soaked at least %s", healthy-len(sr.Problems), healthy,
			req.From, syncwindow.FormatDuration(g.MinSoak))
		out = append(out, sr)
	}
	return out
}

func (a *appHealth) healthProblem(h *Health) (Problem, bool) {
	status := StatusPrefix + a.name
	if len(a.seen) == 0 {
		msg := fmt.Sprintf("%s: not reported (no %s status; %s)", a.name, status, cmpOr(h.Ended, "none found"))
		return Problem{App: a.name, Kind: "not-reported", Message: msg}, true
	}
	o := a.seen[0]
	at := o.when().UTC().Format("2006-01-02 15:04 MST")
	switch {
	case o.st.Status != "success":
		desc := ""
		if o.st.Description != "" {
			desc = fmt.Sprintf(" (%s)", o.st.Description)
		}
		return Problem{App: a.name, Kind: "unhealthy", Commit: o.sha,
			Message: fmt.Sprintf("%s: %s on %s since %s%s", a.name, o.st.Status, short(o.sha), at, desc)}, true
	case len(o.diff) > 0:
		return Problem{App: a.name, Kind: "other-values", Commit: o.sha,
			Message: fmt.Sprintf("%s: healthy on %s with other values: %s", a.name, short(o.sha), strings.Join(o.diff, ", "))}, true
	}
	return Problem{}, false
}

// soakProblem: the run of healthy statuses on the promoted values, newest
// first, started when its oldest status was posted.
func (a *appHealth) soakProblem(h *Health, minSoak time.Duration, now time.Time) (Problem, bool) {
	if minSoak == 0 {
		return Problem{}, false
	}
	since := a.seen[0].when()
	for _, o := range a.seen {
		if !o.good() {
			break
		}
		if o.when().Before(since) {
			since = o.when()
		}
	}
	age := now.Sub(since)
	if age >= minSoak {
		return Problem{}, false
	}
	msg := fmt.Sprintf("%s: healthy on these values for %s only (since %s), minSoak is %s; ready at %s",
		a.name, syncwindow.FormatDuration(age), since.UTC().Format("2006-01-02 15:04 MST"),
		syncwindow.FormatDuration(minSoak), since.Add(minSoak).UTC().Format("2006-01-02 15:04 MST"))
	if !a.decided && h.Ended != "" {
		msg += " (or earlier: " + h.Ended + ")"
	}
	return Problem{App: a.name, Kind: "too-young", Commit: a.seen[0].sha, Message: msg}, true
}

func sortedApps(m map[string]*appHealth) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
