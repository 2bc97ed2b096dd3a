package main

import (
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
	return writeOverview(ios, o.output, inv, writeJSON[*ordering.Inventory], ordering.Table, ordering.Markdown)
}
