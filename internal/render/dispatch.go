package render

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// Renderer renders one resolved source of one kind into the manifests
// Argo CD's repo-server would produce for it, as a YAML stream.
//
// A renderer reads only what in gives it and decides nothing Argo CD
// decides from the Application (argo.App.Resolve did that). An error
// wrapping argo.ErrNotRendered means the source cannot be rendered
// offline; any other error is a failed render and names env, app and
// source.
type Renderer interface {
	Render(ctx context.Context, in Input, req *argo.Request) ([]byte, error)
}

// Input is what a renderer may read besides the request.
type Input struct {
	// FS is the repository at the revision being rendered.
	FS fs.FS
	// Charts fetches packaged charts from chart repositories.
	Charts ChartFetcher
	// Repos fetches the git repositories of kustomize remote bases; nil
	// leaves them not rendered.
	Repos RepoOpener
	// Log receives what the tools would print on stderr while rendering
	// this source (their libraries' warnings, deprecated kustomization
	// fields, jsonnet's std.trace), each distinct line once per render,
	// cleaned of the render's input values; nil drops them. Library
	// records reach it only once a LibraryHandler is the default logger.
	Log *slog.Logger
}

// ChartFetcher returns a packaged chart (.tgz).
type ChartFetcher interface {
	Fetch(ctx context.Context, repoURL, chart, version string) ([]byte, error)
}

// renderers has one entry per source kind that renders offline.
var renderers = map[string]Renderer{
	argo.KindHelm:      HelmSource{},
	argo.KindDirectory: DirectorySource{},
	argo.KindKustomize: KustomizeSource{},
}

// For returns the renderer of a source kind.
func For(kind string) (Renderer, bool) {
	r, ok := renderers[kind]
	return r, ok
}

// RenderUntracked renders req with the renderer of its kind (a kind
// without a renderer is argo.ErrNotRendered), and reports whether
// rendering req again is proven to give the same bytes (see
// ChartDeterministic): only a Helm source whose chart passes the scan is.
// It leaves out Argo CD's tracking metadata: ParseTracked(out, ns,
// &Tracking) adds it while parsing.
//
// A panic anywhere below (Helm 3 or 4, kustomize, go-jsonnet, template
// functions, our own code) is recovered here, once for every engine, and
// returned as this render's error wrapping ErrPanic: the other apps of a
// run still render.
func RenderUntracked(ctx context.Context, in Input, req *argo.Request) (out []byte, deterministic bool, err error) {
	r, ok := For(req.Kind)
	if !ok {
		return nil, false, argo.NotRendered("%s source %s not rendered", req.Kind, req.Path)
	}
	n := &notices{}
	ctx = withNotices(ctx, n)
	defer n.report(ctx, in.Log) // last: once the capture ends and a panic is recovered
	defer n.capture(req.Kind)()
	defer func() {
		if p := recover(); p != nil {
			out, deterministic, err = nil, false, recovered(p, req)
		}
	}()
	if h, ok := r.(HelmSource); ok {
		var chart []byte
		out, chart, err = h.render(ctx, in, req)
		deterministic = err == nil && ChartDeterministic(chart)
	} else {
		out, err = r.Render(ctx, in, req)
	}
	if err != nil {
		return nil, false, err
	}
	if len(out) > MaxAppBytes {
		return nil, false, fmt.Errorf("env %s, app %s: source %s: %w", req.Env, req.App,
			firstNonEmpty(req.Source.Chart, req.Source.Path), tooLarge(len(out)))
	}
	return out, deterministic, nil
}
