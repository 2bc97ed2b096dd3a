package main

import (
	"context"
	"io/fs"

	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/patch"
)

// prefetchIndexes fetches the index.yaml of every HTTP chart repository
// the env's manifests use, while the plan is being built on the other
// core: the chart check then answers from the client's cache instead of
// waiting on the network. Errors are left for the check itself to report.
// It reads the work tree, not git objects: go-git's object storage is not
// safe for use beside the plan, and a cache warmer needs no exactness.
func prefetchIndexes(ctx context.Context, fsys fs.FS, cfg *config.Config, env string, c *charts.Client) {
	files, err := cfg.ManifestFiles(fsys, env)
	if err != nil {
		return
	}
	seen := map[string]bool{}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			continue
		}
		srcs, _ := patch.HelmSources(data)
		for _, s := range srcs {
			if s.RepoURL == "" || charts.IsOCI(s.RepoURL) || seen[s.RepoURL] {
				continue
			}
			seen[s.RepoURL] = true
			go c.Versions(ctx, s.RepoURL, s.Chart) //nolint:errcheck // warms the cache only
		}
	}
}
