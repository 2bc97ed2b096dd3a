package main

import (
	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
)

// Shell completion of environment and component names, read from the
// .promote.yaml of --repo (or the enclosing work tree) when the shell asks.

func completeEnvs(cmd *cobra.Command, o *options, flags ...string) {
	for _, name := range flags {
		_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			cfg := completionConfig(o)
			if cfg == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return cfg.Environments, cobra.ShellCompDirectiveNoFileComp
		})
	}
}

func completeComponents(cmd *cobra.Command, o *options, flag string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		cfg := completionConfig(o)
		if cfg == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var keys []string
		for _, c := range cfg.Components {
			keys = append(keys, c.Key)
		}
		return keys, cobra.ShellCompDirectiveNoFileComp
	})
}

// completionConfig is nil when there is no readable config: completion
// then offers nothing rather than an error.
func completionConfig(o *options) *config.Config {
	repo, err := git.Open(orDot(o.repo))
	if err != nil {
		return nil
	}
	defer repo.Close()
	cfg, err := config.Load(repo.Root())
	if err != nil {
		return nil
	}
	return cfg
}
