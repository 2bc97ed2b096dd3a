package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/ordering"
)

// runWaves prints the sync-wave inventory of the work tree: every
// Application and ApplicationSet by wave, and each RollingSync step with
// the apps it selects.
func runWaves(cfg *config.Config, repo *git.Repo, o *options, ios *ioStreams) error {
	envs, err := cfg.SelectEnvs(o.envs)
	if err != nil {
		return fmt.Errorf("--env: %w", err)
	}
	inv, err := ordering.Build(os.DirFS(repo.Root()), cfg, envs...)
	if err != nil {
		return err
	}
	switch o.output {
	case "json":
		enc := json.NewEncoder(ios.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(inv)
	case "markdown":
		return ordering.Markdown(ios.Out, inv)
	case "table":
		return ordering.Table(ios.Out, inv)
	}
	// no -o: a table for a person at a terminal, markdown for a file or pipe
	if ios.OutTTY {
		return ordering.Table(ios.Out, inv)
	}
	return ordering.Markdown(ios.Out, inv)
}
