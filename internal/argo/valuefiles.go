package argo

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"strings"
)

// ValueFiles resolves a Helm source's valueFiles for app as Argo CD's
// repo-server does. "$<ref>/path" must name a `ref:` source of the same app
// whose repoURL is repoURL (this repository): anything else could not be
// read offline. Plain paths are chart-relative, or repository-relative
// (InRepo) when the chart is a path in this repository. A leading "/"
// means the chart's or repository's root; leaving that root is an error.
func (a App) ValueFiles(src Source, repoURL string) ([]ValueFile, error) {
	if src.Helm == nil {
		return nil, nil
	}
	refs := a.refSources()
	var out []ValueFile
	for _, raw := range src.Helm.ValueFiles {
		vf, err := a.valueFile(raw, src, refs, repoURL)
		if err != nil {
			return nil, fmt.Errorf("app %s: value file %q: %w", a.Name, raw, err)
		}
		vf.Optional = src.Helm.IgnoreMissingValueFiles
		out = append(out, vf)
	}
	return out, nil
}

func (a App) valueFile(raw string, src Source, refs map[string]Source, repoURL string) (ValueFile, error) {
	if strings.HasPrefix(raw, "$") {
		refVar, rest, _ := strings.Cut(raw, "/")
		if ref, ok := refs[refVar]; ok {
			if !SameRepo(ref.RepoURL, repoURL) {
				return ValueFile{}, fmt.Errorf("ref %q is repository %s, not this repository (%s)", strings.TrimPrefix(refVar, "$"), ref.RepoURL, repoURL)
			}
			rest, err := a.envsubst(rest, src)
			if err != nil {
				return ValueFile{}, err
			}
			p, err := cleanRel(rest)
			if err != nil || p == "" {
				return ValueFile{}, fmt.Errorf("must name a file inside the repository")
			}
			return ValueFile{Path: p, InRepo: true}, nil
		}
		// Argo CD would expand an unknown $ref as an empty variable and
		// read a different file than the author meant; refuse instead.
		if !strings.HasPrefix(raw, "$$") && !strings.HasPrefix(raw, "$ARGOCD_") && !strings.HasPrefix(raw, "${") {
			return ValueFile{}, fmt.Errorf("no source of the app has ref %q", strings.TrimPrefix(refVar, "$"))
		}
	}
	p, err := a.envsubst(raw, src)
	if err != nil {
		return ValueFile{}, err
	}
	if u, err := url.Parse(p); err == nil && u.Scheme != "" {
		return ValueFile{}, fmt.Errorf("remote value files are not supported offline")
	}
	switch {
	case src.Chart != "":
		// A chart from a Helm repository: appPath and root are the chart.
		rel, err := cleanRel(p)
		if err != nil || rel == "" {
			return ValueFile{}, fmt.Errorf("must name a file inside the chart")
		}
		return ValueFile{Path: rel}, nil
	case SameRepo(src.RepoURL, repoURL):
		if !strings.HasPrefix(p, "/") {
			p = path.Join(src.Path, p)
		}
		rel, err := cleanRel(p)
		if err != nil || rel == "" {
			return ValueFile{}, fmt.Errorf("must name a file inside the repository")
		}
		return ValueFile{Path: rel, InRepo: true}, nil
	}
	// A git-path chart in another repository: keep it chart-relative.
	return ValueFile{Path: path.Clean(p)}, nil
}

// envsubst expands the build environment variables Argo CD offers in value
// file paths (unknown ones become empty, as there). The revision variables
// name a commit this package does not know, so they are refused.
func (a App) envsubst(s string, src Source) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	env := map[string]string{
		"ARGOCD_APP_NAME":                   a.Name,
		"ARGOCD_APP_NAMESPACE":              a.Namespace,
		"ARGOCD_APP_PROJECT_NAME":           a.Project,
		"ARGOCD_APP_SOURCE_REPO_URL":        src.RepoURL,
		"ARGOCD_APP_SOURCE_PATH":            src.Path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION": src.TargetRevision,
	}
	var bad string
	out := os.Expand(s, func(v string) string {
		if v == "$" {
			return "$"
		}
		if strings.HasPrefix(v, "ARGOCD_APP_REVISION") {
			bad = v
		}
		return env[v]
	})
	if bad != "" {
		return "", fmt.Errorf("uses $%s, which is not known offline", bad)
	}
	return out, nil
}

// FileParam is a resolved helm.fileParameters entry: the value at Name is
// set to the content of File, as `helm template --set-file` does.
type FileParam struct {
	Name string
	File ValueFile
}

// FileParams resolves a Helm source's fileParameters as Argo CD's
// repo-server does: each path is expanded like a value file path and is
// chart-relative, or repository-relative for a chart kept in this
// repository. Argo CD resolves `$ref/` paths only in valueFiles; here it
// would expand $ref as an empty variable and read another file, so such a
// path is refused.
func (a App) FileParams(src Source, repoURL string) ([]FileParam, error) {
	if src.Helm == nil {
		return nil, nil
	}
	refs := a.refSources()
	var out []FileParam
	for _, fp := range src.Helm.FileParameters {
		if fp.Name == "" || fp.Path == "" {
			return nil, fmt.Errorf("app %s: file parameter %q: needs both name and path", a.Name, fp.Name)
		}
		if refVar, _, _ := strings.Cut(fp.Path, "/"); hasKey(refs, refVar) {
			return nil, fmt.Errorf("app %s: file parameter %s: path %q: Argo CD resolves $%s only in valueFiles",
				a.Name, fp.Name, fp.Path, strings.TrimPrefix(refVar, "$"))
		}
		vf, err := a.valueFile(fp.Path, src, nil, repoURL)
		if err != nil {
			return nil, fmt.Errorf("app %s: file parameter %s: path %q: %w", a.Name, fp.Name, fp.Path, err)
		}
		out = append(out, FileParam{Name: fp.Name, File: vf})
	}
	return out, nil
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}
