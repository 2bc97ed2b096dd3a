package main

import (
	"bytes"
	"context"
	"io/fs"

	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/config"
)

// prefetchIndexes fetches the index.yaml of every HTTP chart repository
// the env's manifests name, while the plan is being built on the other
// core: the chart check then answers from the client's cache instead of
// waiting on the network. It reads the work tree (go-git's object storage
// is not safe for use beside the plan) and scans for repoURL lines rather
// than parsing YAML: a cache warmer needs no exactness, and the plan's
// parse of the same files is what the check trusts.
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
		for _, u := range repoURLs(data) {
			if !seen[u] {
				seen[u] = true
				go c.Prefetch(ctx, u)
			}
		}
	}
}

// repoURLs returns the values of `repoURL:` keys in data, block or flow
// style, unquoted; templated values are skipped.
func repoURLs(data []byte) []string {
	var out []string
	for rest := data; ; {
		i := bytes.Index(rest, []byte("repoURL:"))
		if i < 0 {
			return out
		}
		rest = rest[i+len("repoURL:"):]
		end := bytes.IndexAny(rest, "\r\n,}#")
		if end < 0 {
			end = len(rest)
		}
		v := string(bytes.Trim(bytes.TrimSpace(rest[:end]), `"'`))
		if v != "" && !bytes.Contains([]byte(v), []byte("{{")) {
			out = append(out, v)
		}
	}
}
