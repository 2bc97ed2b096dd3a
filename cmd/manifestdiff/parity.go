//go:build parity

package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/manifestdiff"
)

// The hidden `parity REV` verb of builds with -tags parity prints, as
// JSON, every app of REV as manifestdiff renders it (its objects in
// clear, secrets included): test/argocd-parity compares it with Argo CD.
func init() { extraCommands = append(extraCommands, parityCmd) }

func parityCmd() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:    "parity REV",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			getenv := os.Getenv
			repo, err := git.Open(orDot(o.repo))
			if err != nil {
				return err
			}
			defer repo.Close()
			h, err := repo.Resolve(args[0])
			if err != nil {
				return err
			}
			fsys, err := repo.TreeFS(h)
			if err != nil {
				return err
			}
			head := manifestdiff.Side{Name: args[0], Rev: h.String(), FS: fsys}
			log := newLogger(cmd.ErrOrStderr(), true, false)
			cfgs, err := loadConfigs(head.FS, head.FS, log)
			if err != nil {
				return err
			}
			client, err := chartClient(o, getenv)
			if err != nil {
				return err
			}
			repos, err := gitFetcher(o, cfgs, getenv)
			if err != nil {
				return err
			}
			d := &manifestdiff.Diff{Config: cfgs.head, Head: head, Envs: o.envs, Charts: client, Repos: repos}
			apps, err := d.RenderForParity(cmd.Context())
			if err != nil {
				return fmt.Errorf("parity: %w", err)
			}
			// the deployment settings stand for the cluster and argocd-cm:
			// the suite fills Argo CD's requests with them
			return json.NewEncoder(cmd.OutOrStdout()).Encode(struct {
				Deployment any
				Apps       []manifestdiff.ParityApp
			}{cfgs.head.Deployment(), apps})
		},
	}
	cmd.Flags().StringVar(&o.repo, "repo", "", "repository")
	cmd.Flags().StringSliceVar(&o.envs, "env", nil, "envs")
	cmd.Flags().StringVar(&o.cacheDir, "cache-dir", "", "cache")
	cmd.Flags().StringVar(&o.chartsDir, "charts-dir", "", "charts")
	return cmd
}
