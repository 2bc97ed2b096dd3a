// Package render turns one resolved Argo CD source into the manifests
// Argo CD's repo-server would produce for it, offline and in process.
//
// # The interface
//
// internal/argo decides everything Argo CD decides from an Application:
// argo.App.Resolve turns a source into an *argo.Request (kind, `$ref`
// value files as repository paths, build environment substituted,
// capabilities chosen). This package renders such a request:
//
//	type Renderer interface {
//		Render(ctx context.Context, in Input, req *argo.Request) ([]byte, error)
//	}
//
// One Renderer per source kind (HelmSource, DirectorySource,
// KustomizeSource), chosen by For(req.Kind); Render dispatches. Input
// holds what a renderer may read: the repository at the revision (an
// fs.FS) and a ChartFetcher. A renderer returns a YAML stream; an error
// wrapping argo.ErrNotRendered means "cannot be rendered offline" (the
// message is the reason for the report), any other error is a failed
// render naming env, app and source. A new kind adds a Renderer and an
// entry in the dispatch table, and nothing in internal/manifestdiff.
//
// Render also does, once for every kind, what no renderer may do on its
// own: it recovers a panic of any engine as that render's error
// (ErrPanic), and it collects what the tools would print on stderr
// (their libraries' log records, deprecated kustomization fields,
// jsonnet's std.trace) as notices for Input.Log, cleaned of the render's
// input values. Nothing here prints: library records reach a render
// through LibraryHandler, the default slog handler a command installs,
// which ties a record to the render running on the goroutine that
// logged it (liblog.go).
//
// # The engines
//
// Below the renderers are the functions that run one tool on bytes:
// Helm and Helm4 render a packaged chart through the Helm v3 and v4 SDKs
// the way `helm template` of that major does (client-only, no cluster, no
// network, no helm binary); HelmFor picks the major Argo CD bundles;
// Directory renders a plain-YAML directory; Kustomize runs the kustomize
// library, whose Helm chart generator executes a helm command: with
// KustomizeHelm, that command is this very executable, answering through
// internal/render/kustomizehelm with the Helm SDK and the chart fetcher
// (a binary that builds such kustomizations calls kustomizehelm.Main
// first in main, or in TestMain). They know nothing about Argo CD
// Applications.
//
// Everything is safe for concurrent use: each render builds its own Helm
// configuration, chart and values, and no call mutates Helm's state. The
// one write to Helm's state is at package init: the HelmVersion both
// SDKs report (helmversion.go). Ours is the registry of running renders
// whose library records are captured (a sync.Map by goroutine).
package render
