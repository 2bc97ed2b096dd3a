package main

import (
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/history"
	"github.com/gitops-promote/gitops-promote/internal/promote"
)

func (f *factory) historyCmd() *cobra.Command {
	o := &options{verb: "history"}
	cmd := &cobra.Command{
		Use:   "history --env ENV",
		Short: "Show the promotions, pins, rollbacks and hand edits of one environment",
		Long: `List, newest first, every commit on the first-parent history of --rev that
changed ENV: promote's promotions, pins and rollbacks (read from their
subjects and trailers: source env and commit, gate overrides, the commit
rolled back to and the reason) and every other commit that changed ENV's
versions file, shown as "edited by hand". Each entry lists the fields it
changed (component, key, from -> to), read from the versions file before
and after the commit. At most 500 commits are read; a shallow clone ends
the walk at its boundary.

A table on a terminal, markdown otherwise (for a merge request or a wiki),
or JSON.`,
		Example: `  promote history --env prod
  promote history --env preprod -o json`,
	}
	cmd.Flags().StringVar(&o.env, "env", "", "environment `ENV` to show (required)")
	completeEnvs(cmd, o, "env")
	cmd.Flags().StringVar(&o.rev, "rev", "HEAD", "read the history from `REV` (branch, tag or commit)")
	return f.verb(o, cmd, tableOrMarkdown...)
}

func (f *factory) rollbackCmd() *cobra.Command {
	o := &options{verb: "rollback"}
	cmd := &cobra.Command{
		Use:   "rollback --env ENV --reason TEXT [--to COMMIT | --steps N]",
		Short: "Restore an environment's values to a point in its history, as one commit",
		Long: `Restore every field of ENV's versions file, and the targetRevision of every
Helm source its chartVersions drive, to their values at a point of ENV's
history, as one commit on HEAD: "chore(ENV): roll back to COMMIT [skip ci]"
with the trailers Rolled-Back-To: COMMIT and Rollback-Reason: TEXT.

The point is --to COMMIT (its values after it), else the commit before the
--steps N-th newest promotion or pin of ENV (default 1: before the last
one; see promote history). --only restores some components only.
Downgrades are what a rollback is for: no --allow-downgrade is needed.

A field that a commit other than promote's (a teammate's edit) changed
since the point is named and refused: a rollback never silently reverts
someone's unrelated change. --force-fields restores them too, recorded in
a Rollback-Forced-Fields trailer; --only leaves them out.

--plan prints what the rollback would commit, writing nothing, as plan
does for apply. --push and --merge-request work as for apply: a rejected
push is rebuilt on the new tip as a compare-and-swap, and a field someone
changed meanwhile stops the run, named. Of ENV's gates in .promote.yaml
only syncWindow applies (exit 3 when closed; --override-sync-window
REASON); sourceHealthy and minSoak judge promoted values, not restored
ones. Argo CD then syncs ENV as for any commit: manually where auto-sync
is off (docs/rollback.md).`,
		Example: `  promote rollback --env prod --reason "LEDGER-901: 5xx after 1.4.0" --plan
  promote rollback --env prod --reason "LEDGER-901: 5xx after 1.4.0" --push
  promote rollback --env prod --to 1a2b3c4d --only ledger-node.api --reason "api only" --merge-request`,
	}
	fs := cmd.Flags()
	fs.StringVar(&o.env, "env", "", "environment `ENV` to roll back (required)")
	completeEnvs(cmd, o, "env")
	fs.StringVar(&o.rollbackTo, "to", "", "restore the values ENV had at `COMMIT` (default: before its last promotion or pin)")
	fs.IntVar(&o.steps, "steps", 0, "restore the values before the `N`-th newest promotion or pin of ENV (default 1)")
	fs.StringSliceVar(&o.only, "only", nil, "restore only these components, `C1,C2` or repeated (default: all)")
	completeComponents(cmd, o, "only")
	fs.StringVar(&o.reason, "reason", "", "why: recorded in a Rollback-Reason commit trailer (required)")
	fs.BoolVar(&o.forceFields, "force-fields", false, "also restore fields someone else changed since the point")
	fs.BoolVar(&o.planOnly, "plan", false, "print what the rollback would commit, writing nothing")
	fs.Var(&overrideValue{&o.overrides, config.GateSyncWindow}, "override-sync-window",
		"roll back although ENV's sync windows are closed; `REASON` and who gave it are recorded in a Gate-Overridden commit trailer")
	commitFlags(cmd, o)
	return f.verb(o, cmd, textOrJSON...)
}

// runHistory prints one env's history read from --rev.
func runHistory(cfg *config.Config, repo *git.Repo, o *options, ios *ioStreams) error {
	head, err := repo.Resolve(orHead(o.rev))
	if err != nil {
		return err
	}
	entries, err := history.Read(repo, cfg, o.env, head, history.DefaultLimit)
	if err != nil {
		return err
	}
	v := &history.View{Env: o.env, Entries: entries}
	return writeOverview(ios, o.output, v, history.WriteJSON, history.WriteTable, history.WriteMarkdown)
}

// rollbackBuild resolves the rollback point and values on HEAD once; the
// build then plans them on whatever commit apply, a push retry or a merge
// request builds on.
func rollbackBuild(cfg *config.Config, repo *git.Repo, o *options, prefetch func(string)) (promote.BuildFunc, error) {
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	req := promote.RollbackRequest{Env: o.env, Steps: o.steps, Only: o.only, Reason: o.reason,
		ForceFields: o.forceFields, ChartRepository: prefetch}
	if o.rollbackTo != "" {
		if req.To, err = repo.Resolve(o.rollbackTo); err != nil {
			return nil, fmt.Errorf("--to: %w", err)
		}
	}
	rb, err := promote.ResolveRollback(repo, cfg, head.Hash, req)
	if err != nil {
		return nil, err
	}
	return func(target, _ fs.FS) (*promote.Plan, error) { return rb.Build(target, cfg) }, nil
}
