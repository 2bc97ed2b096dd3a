package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
)

// extraCommands are verbs of special builds (man.go, -tags mangen).
var extraCommands []func() *cobra.Command

// runFunc runs one parsed and validated verb; tests swap it to see what
// a command line parses to.
type runFunc func(ctx context.Context, o *options) error

// factory hands each verb what it wires: the streams, the global flags
// and the run function.
type factory struct {
	ios     *cli.IOStreams
	globals *cli.Globals
	run     runFunc
}

// newRootCmd builds the whole command tree; every verb's flags are
// defined in its constructor in commands.go.
func newRootCmd(ios *cli.IOStreams, run runFunc) *cobra.Command {
	f := &factory{ios: ios, globals: &cli.Globals{}, run: run}
	var version bool
	root := &cobra.Command{
		Use:   "promote",
		Short: "Promote and pin versions in an Argo CD + Helm GitOps repository",
		Long: `promote moves chart versions and image tags from one environment of an
Argo CD + Helm GitOps repository to the next (qa -> preprod -> prod), as
one atomic commit that changes only the bytes of the changed values, and
pushes it safely: never forced, retried as a compare-and-swap when someone
else pushed first. The repository layout is described by .promote.yaml
(promote init drafts it).

Tokens come from the environment only, never from flags: GIT_TOKEN, else
GITLAB_TOKEN, for HTTPS pushes; HELM_REPO_USERNAME and HELM_REPO_PASSWORD
for the chart repositories HELM_REPO_URL names, besides Helm's and
docker's credential files; --merge-request also needs CI_API_V4_URL,
CI_PROJECT_ID and GITLAB_TOKEN (a project or group access token with the
api scope).

Exit codes: 0 success (including "already up to date"), 1 any error or
failed check, 2 for plan --detailed-exitcode when there are changes, 3
when a gate refused the promotion (plan and apply).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if version {
				return cli.WriteVersion(ios.Out, "promote", "text")
			}
			return cli.Usagef(cmd, "no command given: plan, apply, pin, rollback, history, reject, unreject, check, status, waves, init or version")
		},
	}
	cli.VersionFlag(root, &version)
	cli.GlobalFlags(root, f.globals)
	root.AddCommand(f.planCmd(), f.applyCmd(), f.pinCmd(), f.rollbackCmd(), f.historyCmd(), f.rejectCmd("reject"), f.rejectCmd("unreject"), f.checkCmd(), f.statusCmd(), f.wavesCmd(), f.initCmd(), cli.VersionCmd(ios))
	for _, extra := range extraCommands {
		root.AddCommand(extra())
	}
	cli.Configure(root, ios)
	root.SetHelpFunc(localizedHelp(root.HelpFunc()))
	return root
}

// verb finishes a verb's command: --repo, then -o with output (the
// default and the formats) when the verb prints a result; its run copies
// the global flags, takes the positional arguments, validates and runs.
func (f *factory) verb(o *options, cmd *cobra.Command, output ...string) *cobra.Command {
	repoFlag(cmd, o)
	if len(output) > 0 {
		cli.OutputFlag(cmd, &o.output, output[0], output[1:]...)
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.Globals = *f.globals
		if len(args) > 0 {
			o.args = args
		}
		if err := o.validate(cmd); err != nil {
			return err
		}
		for _, w := range cli.Warnings(cmd) {
			fmt.Fprintf(f.ios.ErrOut, "promote: warning: %s\n", w)
		}
		return f.run(cmd.Context(), o)
	}
	return cmd
}
