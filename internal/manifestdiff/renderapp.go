package manifestdiff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/gitsource"
	"github.com/gitops-promote/gitops-promote/internal/render"
)

// renderApp renders every source of app at one revision and concatenates
// the manifests: argo resolves each source, render renders it. Sources
// that cannot be rendered offline are named in the note; a failed render
// names env, app and source. once reports that every source rendered is
// proven to render the same bytes again (render.RenderChecked).
//
// The manifests come without Argo CD's tracking metadata when track is
// not nil: render.ParseTracked adds it while parsing them, which saves
// a parse and a re-encode of every document.
func (d *Diff) renderApp(ctx context.Context, app *argo.App, side Side) (out []byte, track *render.Tracking, note string, once bool, err error) {
	m, track, note, once, err := d.renderSources(ctx, app, side)
	return m, track, note, once && err == nil, err
}

func (d *Diff) renderSources(ctx context.Context, app *argo.App, side Side) ([]byte, *render.Tracking, string, bool, error) {
	if err := app.RenderError(); err != nil {
		return nil, nil, "", false, err
	}
	fsys, repos, commits, names, err := d.otherRepos(ctx, app, side)
	if err != nil {
		return nil, nil, "", false, err
	}
	once := true
	var parts []part
	var notes []string
	in := render.Input{FS: fsys, Charts: d.Charts}
	if d.Log != nil && side.Rev == d.Head.Rev && side.Name == d.Head.Name {
		in.Log = d.Log.With("env", app.Env, "app", app.Name)
	}
	if ro, ok := d.Repos.(render.RepoOpener); ok {
		in.Repos = ro // kustomize remote bases
	}
	for _, src := range app.Sources {
		rev, err := d.revision(ctx, app, src, side)
		if c, ok := commits[argo.RepoKey(src.RepoURL)]; ok && src.Chart == "" {
			rev = c // the commit Argo CD checks out for a source of another repository
		}
		var req *argo.Request
		if err == nil {
			req, err = resolveSource(*app, src, argo.ResolveOptions{Config: d.configAt(side), FS: fsys, Revision: rev, Repos: repos})
		}
		var m []byte
		if err == nil && req != nil {
			var det bool
			m, det, err = render.RenderUntracked(ctx, in, req)
			once = once && det
		}
		if errors.Is(err, argo.ErrNotRendered) {
			notes = append(notes, names.Replace(err.Error()))
			continue
		}
		if err != nil {
			if names != noMounts {
				err = errors.New(names.Replace(err.Error())) // where a file of another repository really is
			}
			return nil, nil, "", false, err
		}
		if req != nil {
			parts = append(parts, part{m, render.TrackingOf(req), req})
			if err := d.count(app, parts); err != nil {
				return nil, nil, "", false, err
			}
		}
	}
	out, track, err := joinParts(parts)
	if err != nil {
		return nil, nil, "", false, err
	}
	return out, track, strings.Join(notes, "; "), once, nil
}

// part is one source's untracked manifests and its tracking.
type part struct {
	m     []byte
	track render.Tracking
	req   *argo.Request
}

// joinParts concatenates the sources' manifests. Every source of an app
// has the same tracking (the app's name and namespace, the config's
// method), returned for render.ParseTracked to add; should they differ,
// each part is tracked as render.Render would have, and nil returned.
func joinParts(parts []part) ([]byte, *render.Tracking, error) {
	same := true
	for _, p := range parts[min(1, len(parts)):] {
		same = same && p.track == parts[0].track
	}
	var out bytes.Buffer
	for _, p := range parts {
		m := p.m
		if !same {
			var err error
			if m, err = render.Track(m, p.req); err != nil {
				return nil, nil, err
			}
		} else if p.track.Active() && out.Len() > 0 && len(m) > 0 && out.Bytes()[out.Len()-1] != '\n' {
			out.WriteByte('\n') // a tracked part always ends its last line
		}
		if out.Len() > 0 && len(m) > 0 && !bytes.HasPrefix(m, []byte("---")) {
			out.WriteString("---\n")
		}
		out.Write(m)
	}
	if !same || len(parts) == 0 {
		return out.Bytes(), nil, nil
	}
	t := parts[0].track
	return out.Bytes(), &t, nil
}

// RepoFetcher opens another git repository at an Application's
// targetRevision (gitsource.Fetcher does): its tree and the commit.
type RepoFetcher interface {
	Open(ctx context.Context, repoURL, revision, tagPrefix string) (fs.FS, string, error)
}

// otherRepos fetches the other repositories app reads and mounts them
// next to the side's tree: the FS to render from, where each one is
// (argo.ResolveOptions.Repos) and the commit it resolved to.
//
// names rewrites a mount directory in a message as the repository and
// commit it stands for.
func (d *Diff) otherRepos(ctx context.Context, app *argo.App, side Side) (fsys fs.FS, dirs, commits map[string]string, names *strings.Replacer, err error) {
	need, err := app.OtherRepos(d.Config.RepoURL)
	if err != nil || len(need) == 0 {
		if err != nil {
			err = fmt.Errorf("env %s, app %s: %w", app.Env, app.Name, err)
		}
		return side.FS, nil, nil, noMounts, err
	}
	if d.Repos == nil {
		return nil, nil, nil, nil, fmt.Errorf("env %s, app %s: reads repository %s, and no git fetcher is configured", app.Env, app.Name, gitsource.Redact(need[0].URL))
	}
	trees := map[string]fs.FS{}
	dirs, commits = map[string]string{}, map[string]string{}
	var pairs []string
	for _, r := range need {
		tree, commit, err := d.Repos.Open(ctx, r.URL, r.Revision, r.TagPrefix)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("env %s, app %s: repository %s at %q: %w", app.Env, app.Name, gitsource.Redact(r.URL), r.Revision, err)
		}
		key := gitsource.MountKey(r.URL)
		trees[key] = tree
		dirs[argo.RepoKey(r.URL)] = path.Join(gitsource.MountDir, key)
		commits[argo.RepoKey(r.URL)] = commit
		pairs = append(pairs, path.Join(gitsource.MountDir, key)+"/", gitsource.Redact(r.URL)+"@"+commit[:min(12, len(commit))]+":")
	}
	return gitsource.Mount(side.FS, trees), dirs, commits, strings.NewReplacer(pairs...), nil
}

var noMounts = strings.NewReplacer()

// VersionResolver resolves a chart version constraint to the highest
// matching version of the repository (charts.Client does).
type VersionResolver interface {
	ResolveVersion(ctx context.Context, repoURL, chart, constraint string) (string, error)
}

// revision is what Argo CD resolves a source's targetRevision to: the
// commit rendered for a source of this repository, the highest matching
// chart version for a chart whose targetRevision is a semver range.
func (d *Diff) revision(ctx context.Context, app *argo.App, src argo.Source, side Side) (string, error) {
	if src.Chart == "" {
		if argo.SameRepo(src.RepoURL, d.Config.RepoURL) {
			return side.Rev, nil
		}
		return "", nil
	}
	if !charts.IsConstraint(src.TargetRevision) {
		return src.TargetRevision, nil
	}
	r, ok := d.Charts.(VersionResolver)
	if !ok {
		return "", fmt.Errorf("env %s, app %s, chart %s version %s: version ranges need a chart repository client", app.Env, app.Name, src.Chart, src.TargetRevision)
	}
	v, err := r.ResolveVersion(ctx, src.RepoURL, src.Chart, src.TargetRevision)
	if err != nil {
		return "", fmt.Errorf("env %s, app %s, chart %s version %s: %w", app.Env, app.Name, src.Chart, src.TargetRevision, err)
	}
	return v, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// count is "1 app", "2 apps".
func count(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }
