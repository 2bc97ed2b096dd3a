// Package report presents manifestdiff results: a JSON document for tools, a
// markdown note for a GitLab merge request and a unified diff for terminals.
// It only formats: every writer is injected, and secret values never reach it
// because diff.ResourceDiff holds redacted text only.
package report

import (
	"sort"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/syncready"
)

// App statuses.
const (
	StatusAdded     = "added"
	StatusRemoved   = "removed"
	StatusChanged   = "changed"
	StatusUnchanged = "unchanged"
	StatusError     = "error"
)

// App is one Argo CD application compared at two revisions.
type App struct {
	Env, Name string
	// Namespace is the app's destination namespace; like the name, it is
	// masked when comparing changes across apps, so per-node releases of
	// one chart bump group together.
	Namespace string
	// Status is added, removed, changed, unchanged or error.
	Status string
	// Error is one line naming env, app, chart and version when Status is
	// error.
	Error string
	// NotRendered says why a source type (e.g. kustomize) was not rendered.
	NotRendered string
	// Warnings are the warnings Argo CD raises for the app as the head
	// revision renders it (diff.Warnings: an object rendered more than
	// once), in Argo CD's words.
	Warnings []string
	// Moves are the pinned versions the head revision moves for this app
	// (its chart's version, its component's image tag); the outputs lead
	// with them and fold the changes that only follow from them.
	Moves     []Move
	Resources []diff.ResourceDiff
	// Live is the app compared with its env's cluster; nil without --live
	// or outside the live envs.
	Live *Live
}

// Report is the comparison of every app between two revisions.
type Report struct {
	Base, Head string
	Apps       []App
	// LiveEnvs are the envs compared with their cluster (--live).
	LiveEnvs []LiveEnv
	// Shard is set on the report of one shard of a sharded run (see Merge).
	Shard *Shard
	// PendingSettings are the trusted .promote.yaml settings the head
	// revision changes (names only, from config.TrustedKeys): the run
	// rendered both revisions with the target branch's values, and the
	// change takes effect after merge.
	PendingSettings []string
	// Findings are what Argo CD would refuse or break at sync in the
	// apps the run rendered (see syncready): new ones first, errors first.
	Findings []syncready.Finding
}

// AppStatus derives changed or unchanged from an app's resource diffs, for
// apps that exist at both revisions.
func AppStatus(res []diff.ResourceDiff) string {
	for _, r := range res {
		if r.Status != diff.Unchanged {
			return StatusChanged
		}
	}
	return StatusUnchanged
}

// envGroup is one environment's apps in report order.
type envGroup struct {
	Env  string
	Apps []App
}

// ordered groups apps by environment in order of first appearance, then
// sorts each environment's apps by name, so every output has the same
// deterministic order.
func (r Report) ordered() []envGroup {
	if groups, ok := r.inOrder(); ok {
		return groups
	}
	var groups []envGroup
	idx := map[string]int{}
	for _, a := range r.Apps {
		i, ok := idx[a.Env]
		if !ok {
			i = len(groups)
			idx[a.Env] = i
			groups = append(groups, envGroup{Env: a.Env})
		}
		groups[i].Apps = append(groups[i].Apps, a)
	}
	for _, g := range groups {
		sort.SliceStable(g.Apps, func(i, j int) bool { return g.Apps[i].Name < g.Apps[j].Name })
	}
	return groups
}

// inOrder is ordered without a copy, for apps that already come env by
// env, each env's by name, as manifestdiff's do: the groups are windows
// onto r.Apps (capped, so an append cannot reach the next), which their
// readers only read. A report of 12,000 apps is then not copied by every
// output that walks it.
func (r Report) inOrder() ([]envGroup, bool) {
	var groups []envGroup
	seen := map[string]bool{}
	start := 0
	for i := 1; i <= len(r.Apps); i++ {
		if i < len(r.Apps) && r.Apps[i].Env == r.Apps[start].Env {
			if r.Apps[i].Name < r.Apps[i-1].Name {
				return nil, false
			}
			continue
		}
		env := r.Apps[start].Env
		if seen[env] {
			return nil, false
		}
		seen[env] = true
		groups = append(groups, envGroup{Env: env, Apps: r.Apps[start:i:i]})
		start = i
	}
	return groups, true
}

// failed returns the apps that did not render, in report order.
func (r Report) failed() []App {
	var out []App
	for _, g := range r.ordered() {
		for _, a := range g.Apps {
			if a.Status == StatusError {
				out = append(out, a)
			}
		}
	}
	return out
}

// multiEnv is true when app names need their environment to be unambiguous.
func (r Report) multiEnv() bool { return len(r.ordered()) > 1 }

func (r Report) appLabel(a App) string {
	if r.multiEnv() {
		return a.Env + "/" + a.Name
	}
	return a.Name
}

// visible reports whether an app gets its own section: unchanged apps are
// only counted.
func visible(a App) bool {
	return a.Status != StatusUnchanged || a.NotRendered != ""
}

// changedResources are the resources worth showing.
func changedResources(a App) []diff.ResourceDiff {
	var out []diff.ResourceDiff
	for _, res := range a.Resources {
		if res.Status != diff.Unchanged {
			out = append(out, res)
		}
	}
	return out
}
