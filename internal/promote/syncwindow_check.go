package promote

import (
	"io/fs"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/syncwindow"
)

// windowFindings are the AppProject sync window findings of the files env
// reads (appProjects globs and its manifests): windows Argo CD rejects or
// misreads, schedules that never fire, deny windows active around the
// clock. seen drops a finding of a file shared by several envs after the
// first env reports it.
func windowFindings(fsys fs.FS, cfg *config.Config, env string, seen map[string]bool) []Finding {
	files, err := cfg.AppProjectFiles(fsys, env)
	if err != nil {
		return []Finding{{Env: env, Rule: RuleManifestUnreadable, Message: oneLine(err.Error())}}
	}
	projects, findings := syncwindow.Read(fsys, files)
	findings = append(findings, syncwindow.Check(projects)...)
	var out []Finding
	for _, f := range findings {
		if f.Rule == syncwindow.RuleUnreadable {
			continue // the manifest checks report files that do not parse
		}
		key := f.Rule + "|" + f.File + "|" + f.Message
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Finding{Env: env, Rule: f.Rule, File: f.File, Line: f.Line, Message: f.Message})
	}
	return out
}
