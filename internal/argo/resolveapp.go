package argo

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/gitsource"
)

// RepoFetcher opens another git repository at an Application's
// targetRevision (gitsource.Fetcher does): its tree and the commit.
type RepoFetcher interface {
	Open(ctx context.Context, repoURL, revision, tagPrefix string) (fs.FS, string, error)
}

// VersionResolver resolves a chart version range to the highest matching
// version of the chart's repository (charts.Client does).
type VersionResolver interface {
	ResolveVersion(ctx context.Context, repoURL, chart, constraint string) (string, error)
}

// AppOptions is what resolving an app at one revision needs beyond the
// app: everything a renderer would otherwise come back here for.
type AppOptions struct {
	Config *config.Config
	// FS is this repository at Revision, the commit being rendered.
	FS       fs.FS
	Revision string
	// Repos opens the other repositories the app reads; nil fails an
	// app that reads one, naming the repository.
	Repos RepoFetcher
	// Versions resolves chart version ranges; nil fails a source whose
	// targetRevision is a range.
	Versions VersionResolver
	// BestEffort resolves what can be resolved without failing: the
	// safety net that cleans messages of an app's inputs reads them so.
	// A repository that cannot be opened is left out (its sources fail
	// alone), a version range is kept as written, and an app discovery
	// found broken is resolved all the same.
	BestEffort bool
}

// Resolved is an app at one revision as its renderers take it: one
// entry per source, each carrying its resolved revision, its paths in FS
// and its options, so that nothing is looked up again while rendering.
type Resolved struct {
	// FS is the tree every request reads: this repository with each
	// other repository the app reads mounted below gitsource.MountDir.
	FS fs.FS
	// Sources is one entry per source of the app, in its order.
	Sources []Resolution
	where   *strings.Replacer
}

// Resolution is one source resolved: a request to render, nothing (a
// ref-only source: both nil), or why not (Err; wrapping ErrNotRendered
// for a source that cannot be rendered offline).
type Resolution struct {
	Request *Request
	Err     error
}

// Where rewrites each mount directory named in msg as the repository
// and commit it stands for: where a file of another repository really is.
func (r *Resolved) Where(msg string) string {
	if r.where == nil {
		return msg
	}
	return r.where.Replace(msg)
}

// Mounted reports whether the app reads another repository.
func (r *Resolved) Mounted() bool { return r.where != nil }

// ResolveSources opens the other repositories app reads at the
// revisions Argo CD checks out, mounts them next to opt.FS, and resolves
// every source against that tree (Resolve), its revision decided as the
// repo-server decides it (sourceRevision). The error is the app's alone
// (discovery's, a repository that cannot be opened); a source's own
// failure is its Resolution's.
func (a App) ResolveSources(ctx context.Context, opt AppOptions) (*Resolved, error) {
	if err := a.RenderError(); err != nil && !opt.BestEffort {
		return nil, err
	}
	res, commits, err := a.mountRepos(ctx, opt)
	if err != nil {
		if !opt.BestEffort {
			return nil, err
		}
		res, commits = &Resolved{FS: opt.FS}, nil
	}
	ro := ResolveOptions{Config: opt.Config, FS: res.FS, Repos: map[string]string{}}
	for k := range commits {
		ro.Repos[k] = path.Join(gitsource.MountDir, gitsource.MountKey(commits[k].url))
	}
	for _, src := range a.Sources {
		var r Resolution
		ro.Revision, r.Err = a.sourceRevision(ctx, src, opt)
		if c, ok := commits[RepoKey(src.RepoURL)]; ok && src.Chart == "" {
			ro.Revision = c.commit // the commit Argo CD checks out for a source of another repository
		}
		if r.Err == nil {
			r.Request, r.Err = a.Resolve(src, ro)
		}
		res.Sources = append(res.Sources, r)
	}
	return res, nil
}

// fetched is another repository opened at the commit it resolved to.
type fetched struct{ url, commit string }

// mountRepos opens the other repositories app reads (OtherRepos) and
// mounts them next to opt.FS; commits is by RepoKey.
func (a App) mountRepos(ctx context.Context, opt AppOptions) (*Resolved, map[string]fetched, error) {
	need, err := a.OtherRepos(opt.Config.RepoURL)
	if err != nil {
		return nil, nil, fmt.Errorf("env %s, app %s: %w", a.Env, a.Name, err)
	}
	if len(need) == 0 {
		return &Resolved{FS: opt.FS}, nil, nil
	}
	if opt.Repos == nil {
		return nil, nil, fmt.Errorf("env %s, app %s: reads repository %s, and no git fetcher is configured", a.Env, a.Name, gitsource.Redact(need[0].URL))
	}
	trees := map[string]fs.FS{}
	commits := map[string]fetched{}
	var pairs []string
	for _, r := range need {
		tree, commit, err := opt.Repos.Open(ctx, r.URL, r.Revision, r.TagPrefix)
		if err != nil {
			return nil, nil, fmt.Errorf("env %s, app %s: repository %s at %q: %w", a.Env, a.Name, gitsource.Redact(r.URL), r.Revision, err)
		}
		key := gitsource.MountKey(r.URL)
		trees[key] = tree
		commits[RepoKey(r.URL)] = fetched{r.URL, commit}
		pairs = append(pairs, path.Join(gitsource.MountDir, key)+"/", gitsource.Redact(r.URL)+"@"+commit[:min(12, len(commit))]+":")
	}
	return &Resolved{FS: gitsource.Mount(opt.FS, trees), where: strings.NewReplacer(pairs...)}, commits, nil
}

// sourceRevision is what Argo CD resolves a source's targetRevision to:
// the commit rendered for a source of this repository, the highest
// matching chart version for a chart whose targetRevision is a semver
// range (kept as written when resolving best effort).
func (a App) sourceRevision(ctx context.Context, src Source, opt AppOptions) (string, error) {
	if src.Chart == "" {
		if SameRepo(src.RepoURL, opt.Config.RepoURL) {
			return opt.Revision, nil
		}
		return "", nil
	}
	if opt.BestEffort || !charts.IsConstraint(src.TargetRevision) {
		return src.TargetRevision, nil
	}
	if opt.Versions == nil {
		return "", fmt.Errorf("env %s, app %s, chart %s version %s: version ranges need a chart repository client", a.Env, a.Name, src.Chart, src.TargetRevision)
	}
	v, err := opt.Versions.ResolveVersion(ctx, src.RepoURL, src.Chart, src.TargetRevision)
	if err != nil {
		return "", fmt.Errorf("env %s, app %s, chart %s version %s: %w", a.Env, a.Name, src.Chart, src.TargetRevision, err)
	}
	return v, nil
}
