package main

import (
	"context"
	"sync"

	"github.com/gitops-promote/gitops-promote/internal/charts"
)

// prefetcher returns the plan's ChartRepository hook: the first time the
// plan names a chart repository, its index.yaml is fetched in the
// background, and the chart check after the plan answers from the
// client's cache instead of waiting on the network. The plan names only
// the repositories of the Helm sources it pins (never a git source's
// repoURL), so the chart credentials go nowhere the check would not send
// them.
func prefetcher(ctx context.Context, c *charts.Client) func(repoURL string) {
	var seen sync.Map
	return func(repoURL string) {
		if _, dup := seen.LoadOrStore(repoURL, true); !dup {
			go c.Prefetch(ctx, repoURL)
		}
	}
}
