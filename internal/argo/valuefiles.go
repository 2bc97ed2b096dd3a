package argo

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// ValueFiles resolves a Helm source's valueFiles for app as Argo CD's
// repo-server does, with env as the build environment. "$<ref>/path" must
// name a `ref:` source of the same app whose repoURL is repoURL (this
// repository): anything else could not be read offline; the build
// environment is substituted in the rest of the path. Plain paths are
// substituted, then are chart-relative, or repository-relative (InRepo)
// when the chart is a path in this repository. A leading "/" means the
// chart's or repository's root; leaving that root is an error. Patterns
// (globs) are kept: ExpandValueFiles expands them against the files. A
// URL is Remote when its scheme is one of schemes (argocd-cm's
// helm.valuesFileSchemes, compared without case), else an error.
func (a App) ValueFiles(src Source, repoURL string, env BuildEnv, schemes []string) ([]ValueFile, error) {
	if src.Helm == nil {
		return nil, nil
	}
	refs := a.refSources()
	var out []ValueFile
	for _, raw := range src.Helm.ValueFiles {
		vf, err := a.valueFile(raw, src, refs, repoURL, env, schemes)
		if err != nil {
			return nil, fmt.Errorf("app %s: value file %q: %w", a.Name, raw, err)
		}
		vf.Optional = src.Helm.IgnoreMissingValueFiles
		out = append(out, vf)
	}
	return out, nil
}

func (a App) valueFile(raw string, src Source, refs map[string]Source, repoURL string, env BuildEnv, schemes []string) (ValueFile, error) {
	if strings.HasPrefix(raw, "$") {
		refVar, rest, _ := strings.Cut(raw, "/")
		if ref, ok := refs[refVar]; ok {
			if a.MultiSource && ref.Chart != "" {
				return ValueFile{}, fmt.Errorf("source has a 'chart' field defined, but Helm charts are not yet not supported for 'ref' sources")
			}
			p, err := cleanRel(env.Subst(rest))
			if err != nil || p == "" {
				return ValueFile{}, fmt.Errorf("must name a file inside the repository")
			}
			if !SameRepo(ref.RepoURL, repoURL) {
				return ValueFile{Path: p, Repo: ref.RepoURL}, nil
			}
			return ValueFile{Path: p, InRepo: true}, nil
		}
		// With several sources, the repo-server refuses any "$" path that
		// names no ref. With one, it is an environment variable like any
		// other: "$nope/values.yaml" is "/values.yaml", the root's file.
		if a.MultiSource {
			return ValueFile{}, unknownRef(refVar, refs)
		}
	}
	p := env.Subst(raw)
	if u, err := url.Parse(p); err == nil && u.Scheme != "" {
		if slices.ContainsFunc(schemes, func(s string) bool { return strings.EqualFold(s, u.Scheme) }) {
			return ValueFile{Path: p, Remote: true}, nil
		}
		return ValueFile{}, fmt.Errorf("the URL scheme '%s' is not allowed", u.Scheme)
	}
	switch {
	case src.Chart != "":
		// A chart from a Helm repository: appPath and root are the chart.
		rel, err := cleanRel(p)
		if err != nil || rel == "" {
			return ValueFile{}, fmt.Errorf("must name a file inside the chart")
		}
		return ValueFile{Path: rel}, nil
	}
	// A chart at a path of a git repository: relative to that path, or
	// with a leading "/" to the repository's root, never outside it.
	if !strings.HasPrefix(p, "/") {
		p = path.Join(src.Path, p)
	}
	rel, err := cleanRel(p)
	if err != nil || rel == "" {
		return ValueFile{}, fmt.Errorf("must name a file inside the repository")
	}
	if !SameRepo(src.RepoURL, repoURL) {
		return ValueFile{Path: rel, Repo: src.RepoURL}, nil
	}
	return ValueFile{Path: rel, InRepo: true}, nil
}

// FileParam is a resolved helm.fileParameters entry: the value at Name is
// set to the content of File, as `helm template --set-file` does.
type FileParam struct {
	Name string
	File ValueFile
}

// FileParams resolves a Helm source's fileParameters as Argo CD's
// repo-server (3.6) does: each path is resolved like a value file path,
// `$ref/` paths included, and must name one file (no pattern).
func (a App) FileParams(src Source, repoURL string, env BuildEnv, schemes []string) ([]FileParam, error) {
	if src.Helm == nil {
		return nil, nil
	}
	refs := a.refSources()
	var out []FileParam
	for _, fp := range src.Helm.FileParameters {
		if fp.Name == "" || fp.Path == "" {
			return nil, fmt.Errorf("app %s: file parameter %q: needs both name and path", a.Name, fp.Name)
		}
		vf, err := a.valueFile(fp.Path, src, refs, repoURL, env, schemes)
		if err != nil {
			return nil, fmt.Errorf("app %s: file parameter %s: path %q: %w", a.Name, fp.Name, fp.Path, err)
		}
		out = append(out, FileParam{Name: fp.Name, File: vf})
	}
	return out, nil
}

// unknownRef is the repo-server's error for a "$name/" path of a
// multi-source app that no source's ref names.
func unknownRef(refVar string, refs map[string]Source) error {
	if len(refs) == 0 {
		return fmt.Errorf("source referenced %q, but no source has a 'ref' field defined", refVar)
	}
	return fmt.Errorf("source referenced %q, which is not one of the available sources (%s)", refVar, strings.Join(sortedKeys(refs), ", "))
}

// fetchable refuses, as not rendered, a remote value file whose scheme
// helm.valuesFileSchemes allows but only a Helm getter plugin installed
// in Argo CD's repo-server could read (s3://, gs://...): Helm itself
// reads http and https only.
func fetchable(vf ValueFile) error {
	if !vf.Remote {
		return nil
	}
	u, err := url.Parse(vf.Path)
	if err != nil || strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https") {
		return nil
	}
	return NotRendered("value file %s://%s/...: Helm reads %s:// only through a getter plugin installed in Argo CD's repo-server", u.Scheme, u.Host, u.Scheme)
}
