// Package ordering inventories the sync waves of every Argo CD Application
// and ApplicationSet of each environment and checks the ordering rules a
// promotion relies on: valid waves, dependencies on strictly earlier waves
// without cycles, RollingSync steps that select the apps they should,
// manual sync where the config demands it, and the same apps at the same
// waves in every environment.
//
// The package is pure: it reads a repository tree as an fs.FS plus the
// parsed .promote.yaml and returns data; callers print. Build produces the
// Inventory, Check turns it into Findings, Markdown renders an Inventory.
//
// Waves follow Argo CD: the annotation argocd.argoproj.io/sync-wave parsed
// with strconv.Atoi, and 0 when absent or unparsable. An ApplicationSet is
// ordered by the wave in its own metadata when it has one (that is what the
// app-of-apps sync uses), else by its template's wave, which is also what
// its generated apps carry.
package ordering
