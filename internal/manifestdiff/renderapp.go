package manifestdiff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/render"
)

// renderApp renders every source of app at one revision and concatenates
// the manifests: argo resolves each source, render renders it. Sources
// that cannot be rendered offline are named in the note; a failed render
// names env, app and source. once reports that every source rendered is
// proven to render the same bytes again (render.RenderUntracked).
//
// The manifests come without Argo CD's tracking metadata when track is
// not nil: render.ParseTracked adds it while parsing them, which saves
// a parse and a re-encode of every document.
func (d *Diff) renderApp(ctx context.Context, app *argo.App, side Side) (out []byte, track *render.Tracking, note string, once bool, err error) {
	m, track, note, once, err := d.renderSources(ctx, app, side)
	return m, track, note, once && err == nil, err
}

func (d *Diff) renderSources(ctx context.Context, app *argo.App, side Side) ([]byte, *render.Tracking, string, bool, error) {
	res, err := resolveApp(*app, ctx, d.appOptions(side, false))
	if err != nil {
		return nil, nil, "", false, err
	}
	once := true
	var parts []part
	var notes []string
	in := render.Input{FS: res.FS, Charts: d.Charts}
	if d.Log != nil && side.Rev == d.Head.Rev && side.Name == d.Head.Name {
		in.Log = d.Log.With("env", app.Env, "app", app.Name)
	}
	if ro, ok := d.Repos.(render.RepoOpener); ok {
		in.Repos = ro // kustomize remote bases
	}
	for _, r := range res.Sources {
		req, err := r.Request, r.Err
		var m []byte
		if err == nil && req != nil {
			var det bool
			m, det, err = render.RenderUntracked(ctx, in, req)
			once = once && det
		}
		if errors.Is(err, argo.ErrNotRendered) {
			notes = append(notes, res.Where(err.Error()))
			continue
		}
		if err != nil {
			if res.Mounted() {
				err = errors.New(res.Where(err.Error())) // where a file of another repository really is
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

// appOptions is what argo resolves an app at side with: the side's
// config, tree and commit, the fetchers of other repositories and of
// chart versions; bestEffort for the safety net (argo.AppOptions).
func (d *Diff) appOptions(side Side, bestEffort bool) argo.AppOptions {
	opt := argo.AppOptions{Config: d.configAt(side), FS: side.FS, Revision: side.Rev, Repos: d.Repos, BestEffort: bestEffort}
	if v, ok := d.Charts.(argo.VersionResolver); ok {
		opt.Versions = v
	}
	return opt
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
// each part is tracked as render.Track tracks it, and nil returned.
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
type RepoFetcher = argo.RepoFetcher

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
