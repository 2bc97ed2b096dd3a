package gates

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/syncwindow"
)

// EnvWindow is what an env's sync windows say at one instant, for every
// app of the env: grouped by verdict, since apps usually share windows.
type EnvWindow struct {
	Env string `json:"env"`
	// Open is true when every app may sync now, false when at least one
	// may not, and null (nil) when that cannot be told: some apps'
	// windows cannot be evaluated (Reason says why) and none is closed.
	Open *bool `json:"open"`
	// Reason says why some apps' windows cannot be evaluated (AppProject
	// missing, window malformed); "" when every app's can.
	Reason  string        `json:"reason,omitempty"`
	Summary string        `json:"summary"` // one line per group, joined
	Groups  []WindowGroup `json:"groups"`
	// Problems are apps whose windows cannot be evaluated or are closed.
	Problems []Problem `json:"problems,omitempty"`
}

// IsOpen: every app may sync now, as far as is known.
func (ew EnvWindow) IsOpen() bool { return ew.Open != nil && *ew.Open }

// WindowGroup is the apps sharing one verdict.
type WindowGroup struct {
	Apps    []string           `json:"apps"`
	Verdict syncwindow.Verdict `json:"verdict"`
	Summary string             `json:"summary"`
}

// unknownApps gathers the apps whose windows cannot be evaluated for the
// same reason, so the reason is said once for all of them.
type unknownApps struct {
	order []string
	apps  map[string][]string
}

func (u *unknownApps) add(reason, app string) {
	if u.apps == nil {
		u.apps = map[string][]string{}
	}
	if u.apps[reason] == nil {
		u.order = append(u.order, reason)
	}
	u.apps[reason] = append(u.apps[reason], app)
}

// Windows evaluates env's sync windows at now, from the AppProjects in
// the repository (appProjects globs and env's manifests). An app whose
// AppProject is not there, or whose windows are malformed, is a problem:
// nothing is assumed open or closed, and each reason is given once.
func Windows(fsys fs.FS, cfg *config.Config, env string, apps []argo.App, now time.Time) EnvWindow {
	ew := EnvWindow{Env: env}
	files, err := cfg.AppProjectFiles(fsys, env)
	if err != nil {
		ew.Reason = "cannot evaluate: " + oneLine(err.Error())
		ew.Problems = append(ew.Problems, Problem{Kind: "cannot-evaluate", Message: ew.Reason})
		ew.Summary = ew.Reason
		return ew
	}
	projects, findings := syncwindow.Read(fsys, files)
	byName := syncwindow.ByName(projects)
	manualEnv := slices.Contains(cfg.Ordering.ManualSync, env)
	groups := map[string]*WindowGroup{}
	var keys []string
	var unknown unknownApps
	closed := false
	for _, a := range apps {
		proj := cmpOr(a.Project, "default")
		p := byName[proj]
		if p == nil {
			unknown.add(fmt.Sprintf("AppProject %s is not in the repository (looked in %s%s)", proj,
				strings.Join(append(cfg.ManifestGlobs(env), cfg.AppProjects...), ", "), unreadable(findings)), a.Name)
			continue
		}
		ws := syncwindow.Matches(p.Windows, syncwindow.App{Name: a.Name, Namespace: a.Namespace, Server: a.Server, DestName: a.Server})
		// The broken windows, said once for every app they leave unknown.
		var broken []string
		for _, w := range ws {
			if w.Err() != nil {
				broken = append(broken, fmt.Sprintf("%s: %v", w.ErrWhere(), w.Err()))
			}
		}
		if len(broken) > 0 {
			unknown.add(fmt.Sprintf("cannot evaluate AppProject %s: %s", proj, strings.Join(broken, "; ")), a.Name)
			continue
		}
		v, err := syncwindow.Evaluate(ws, manualEnv || !a.Automated, now)
		if err != nil {
			unknown.add(fmt.Sprintf("cannot evaluate AppProject %s: %v", proj, err), a.Name)
			continue
		}
		sum := v.Summary(now)
		key := proj + "\x00" + sum
		if groups[key] == nil {
			groups[key] = &WindowGroup{Verdict: v, Summary: fmt.Sprintf("AppProject %s: %s", proj, sum)}
			keys = append(keys, key)
		}
		groups[key].Apps = append(groups[key].Apps, a.Name)
		closed = closed || !v.Allowed
	}
	var reasons []string
	for _, reason := range unknown.order {
		as := unknown.apps[reason]
		msg := fmt.Sprintf("%s: %s", appList(as), reason)
		reasons = append(reasons, msg)
		ew.Problems = append(ew.Problems, Problem{App: as[0], Kind: "cannot-evaluate", Message: msg})
	}
	ew.Reason = strings.Join(reasons, "; ")
	if closed || ew.Reason == "" { // else unknown: nil
		open := !closed
		ew.Open = &open
	}
	sort.Strings(keys)
	var lines []string
	for _, k := range keys {
		g := groups[k]
		ew.Groups = append(ew.Groups, *g)
		lines = append(lines, fmt.Sprintf("%s (%s)", g.Summary, countApps(len(g.Apps))))
		if !g.Verdict.Allowed {
			ew.Problems = append(ew.Problems, Problem{Kind: "closed",
				Message: fmt.Sprintf("%s closed for %s: %s", env, appList(g.Apps), g.Summary)})
		}
	}
	lines = append(lines, reasons...)
	if len(apps) == 0 {
		lines = append(lines, "no Application in "+env)
	}
	ew.Summary = strings.Join(lines, "; ")
	return ew
}

func unreadable(fs []syncwindow.Finding) string {
	var out []string
	for _, f := range fs {
		if f.Rule == syncwindow.RuleUnreadable {
			out = append(out, f.Message)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; unreadable: " + strings.Join(out, "; ")
}

func countApps(n int) string {
	if n == 1 {
		return "1 app"
	}
	return fmt.Sprintf("%d apps", n)
}

func appList(apps []string) string {
	if len(apps) <= 3 {
		return strings.Join(apps, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(apps[:3], ", "), len(apps)-3)
}

// window is the syncWindow gate: require refuses outside the window,
// warn passes with a warning; both say when the window opens or closes.
func (c *Checker) window(req Request, tree fs.FS, g config.Gate) Result {
	r := Result{Gate: config.GateSyncWindow, Env: req.To}
	apps, err := argo.Discover(tree, c.Cfg, req.To)
	if err != nil {
		r.Summary = "cannot evaluate: " + oneLine(err.Error())
		r.Problems = []Problem{{Kind: "cannot-evaluate", Message: r.Summary}}
		return r
	}
	ew := Windows(tree, c.Cfg, req.To, apps, c.now())
	r.Summary, r.Problems = ew.Summary, ew.Problems
	r.Passed = ew.IsOpen()
	if !r.Passed && g.SyncWindow == config.SyncWindowWarn && !hasKind(ew.Problems, "cannot-evaluate") {
		r.Passed, r.Warning = true, true
	}
	return r
}

func hasKind(ps []Problem, kind string) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Kind == kind })
}

func sortStrings(s []string) { sort.Strings(s) }
