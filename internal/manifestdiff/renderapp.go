package manifestdiff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/render"
)

// renderApp renders every source of app at one revision and concatenates
// the manifests: argo resolves each source, render renders it. Sources
// that cannot be rendered offline are named in the note; a failed render
// names env, app and source.
func (d *Diff) renderApp(ctx context.Context, app *argo.App, side Side) ([]byte, string, error) {
	if err := app.RenderError(); err != nil {
		return nil, "", err
	}
	var out bytes.Buffer
	var notes []string
	in := render.Input{FS: side.FS, Charts: d.Charts}
	for _, src := range app.Sources {
		rev, err := d.revision(ctx, app, src, side)
		var req *argo.Request
		if err == nil {
			req, err = app.Resolve(src, argo.ResolveOptions{Config: d.Config, FS: side.FS, Revision: rev})
		}
		var m []byte
		if err == nil && req != nil {
			m, err = render.Render(ctx, in, req)
		}
		if errors.Is(err, argo.ErrNotRendered) {
			notes = append(notes, err.Error())
			continue
		}
		if err != nil {
			return nil, "", err
		}
		if out.Len() > 0 && len(m) > 0 && !bytes.HasPrefix(m, []byte("---")) {
			out.WriteString("---\n")
		}
		out.Write(m)
	}
	return append([]byte{}, out.Bytes()...), strings.Join(notes, "; "), nil
}

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
