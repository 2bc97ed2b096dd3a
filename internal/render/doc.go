// Package render turns one Argo CD source into the manifests Argo CD's
// repo-server would produce for it, offline and in process.
//
// Helm renders a packaged chart through the Helm v3 SDK the way
// `helm template` does (client-only, no cluster, no network, no helm
// binary); Directory renders a plain-YAML directory source. The package
// knows nothing about git, Argo CD Application manifests or chart
// repositories: callers fetch charts and read value files themselves.
//
// Every function is safe for concurrent use: each render builds its own
// Helm configuration, chart and values, and no call mutates package-level
// state (Helm's or ours).
package render
