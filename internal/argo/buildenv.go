package argo

import "os"

// BuildEnv is the build environment Argo CD's repo-server gives one
// source (its newEnv): the variables it substitutes in Helm parameter
// values, value file and file parameter paths, kustomize images and
// common labels (and common annotations when asked), jsonnet extVars and
// TLAs, and plugin environments.
type BuildEnv struct {
	AppName, AppNamespace, ProjectName string
	// Revision is the source's resolved revision: the commit rendered for
	// a git source, the chart version for a chart.
	Revision                                        string
	SourceRepoURL, SourcePath, SourceTargetRevision string
}

// buildEnv is the environment of src in app at revision rev.
func (a App) buildEnv(src Source, rev string) BuildEnv {
	return BuildEnv{AppName: firstNonEmpty(a.Instance, a.Name), AppNamespace: a.Namespace, ProjectName: a.Project, Revision: rev,
		SourceRepoURL: src.RepoURL, SourcePath: src.Path, SourceTargetRevision: src.TargetRevision}
}

// Vars returns the variables by name.
func (e BuildEnv) Vars() map[string]string {
	return map[string]string{
		"ARGOCD_APP_NAME":                   e.AppName,
		"ARGOCD_APP_NAMESPACE":              e.AppNamespace,
		"ARGOCD_APP_PROJECT_NAME":           e.ProjectName,
		"ARGOCD_APP_REVISION":               e.Revision,
		"ARGOCD_APP_REVISION_SHORT":         shorten(e.Revision, 7),
		"ARGOCD_APP_REVISION_SHORT_8":       shorten(e.Revision, 8),
		"ARGOCD_APP_SOURCE_REPO_URL":        e.SourceRepoURL,
		"ARGOCD_APP_SOURCE_PATH":            e.SourcePath,
		"ARGOCD_APP_SOURCE_TARGET_REVISION": e.SourceTargetRevision,
	}
}

// Subst expands $VAR and ${VAR} as Argo CD does: its variables by value,
// "$$" as "$", and any other variable as "" (the repo-server's own
// environment is not offered).
func (e BuildEnv) Subst(s string) string {
	if !containsDollar(s) {
		return s
	}
	vars := e.Vars()
	return os.Expand(s, func(v string) string {
		if v == "$" {
			return "$"
		}
		return vars[v]
	})
}

func containsDollar(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			return true
		}
	}
	return false
}

func shorten(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
