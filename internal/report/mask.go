package report

import "github.com/gitops-promote/gitops-promote/internal/diff"

// Masking rendered content. A manifest can hold a credential the process
// knows (a merge request can put "{{ env "GITLAB_TOKEN" }}"-like values,
// a copy of a token, a registry password into a ConfigMap, an annotation
// or a name), and the report shows content: the diff, the note posted to
// GitLab, the HTML and the JSON, and a shard's JSON that merge reads. So
// every string of the report passes through one mask before any
// presenter sees it; Secret values are redacted before that, by diff.

// MaskContent replaces every string of the app that holds rendered or
// repository content with mask(string): names, kinds, namespaces, diffs,
// field paths, Secret key names, messages and its live comparison.
func (a *App) MaskContent(mask func(string) string) {
	if mask == nil {
		return
	}
	a.Env, a.Name, a.Namespace = mask(a.Env), mask(a.Name), mask(a.Namespace)
	a.Error, a.NotRendered = mask(a.Error), mask(a.NotRendered)
	for i, m := range a.Moves {
		a.Moves[i] = Move{Component: mask(m.Component), Field: mask(m.Field), Old: mask(m.Old), New: mask(m.New)}
	}
	for i := range a.Resources {
		maskResource(&a.Resources[i], mask)
	}
	if l := a.Live; l != nil {
		l.Error = mask(l.Error)
		for _, group := range [][]LiveResource{l.Changes, l.Drift} {
			for i := range group {
				group[i].Action = mask(group[i].Action)
				maskResource(&group[i].ResourceDiff, mask)
			}
		}
		maskFindings(l.Findings, mask)
	}
}

// MaskContent masks every app (App.MaskContent), the revisions' names
// and the live envs' clusters, errors and findings.
func (r *Report) MaskContent(mask func(string) string) {
	if mask == nil {
		return
	}
	r.Base, r.Head = mask(r.Base), mask(r.Head)
	for i := range r.Apps {
		r.Apps[i].MaskContent(mask)
	}
	for i := range r.LiveEnvs {
		r.LiveEnvs[i].MaskContent(mask)
	}
	maskSyncFindings(r.Findings, mask)
}

// MaskContent masks an env's name, cluster, error and findings.
func (e *LiveEnv) MaskContent(mask func(string) string) {
	if mask == nil {
		return
	}
	e.Env, e.Cluster, e.Error = mask(e.Env), mask(e.Cluster), mask(e.Error)
	maskFindings(e.Findings, mask)
}

func maskResource(rd *diff.ResourceDiff, mask func(string) string) {
	rd.APIVersion, rd.Kind, rd.Namespace, rd.Name = mask(rd.APIVersion), mask(rd.Kind), mask(rd.Namespace), mask(rd.Name)
	rd.Diff = mask(rd.Diff)
	for i := range rd.Generated {
		rd.Generated[i] = mask(rd.Generated[i])
	}
	for i := range rd.SecretKeys {
		rd.SecretKeys[i].Key, rd.SecretKeys[i].Status = mask(rd.SecretKeys[i].Key), mask(rd.SecretKeys[i].Status)
	}
}

func maskFindings(fs []LiveFinding, mask func(string) string) {
	for i := range fs {
		f := &fs[i]
		f.APIVersion, f.Kind, f.Namespace, f.Name = mask(f.APIVersion), mask(f.Kind), mask(f.Namespace), mask(f.Name)
		f.Reason, f.Message = mask(f.Reason), mask(f.Message)
	}
}
