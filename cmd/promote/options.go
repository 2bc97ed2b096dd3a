package main

import (
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
)

// options is every flag of every verb; each verb binds and reads its own
// (see commands.go, one constructor per verb).
type options struct {
	cli.Globals
	verb             string
	repo             string
	from, to, env    string
	envs             []string
	only             []string
	output           string
	push             bool
	createBranch     bool // apply/pin --push: a --branch the remote lacks is created, not refused
	remote, branch   string
	allowDowngrade   bool
	skipChartCheck   bool
	forcePath        bool
	ignoreOrdering   bool
	mergeRequest     bool
	detailedExitCode bool
	sourceRev        string            // plan/apply: the commit the source env is read at ("" = HEAD)
	pushTimeout      time.Duration     // apply/pin: how long a rejected push is rebuilt and retried
	rev              string            // status: the revision read
	noGitLab         bool              // status: no health from GitLab
	overrides        map[string]string // plan/apply: gate -> reason given to override it
	args             []string          // pin's KEY=VALUE
	rollbackTo       string            // rollback --to: the commit whose values are restored
	steps            int               // rollback --steps
	reason           string            // rollback --reason
	forceFields      bool              // rollback: restore fields others changed too
	planOnly         bool              // rollback --plan: write nothing
	allowRejected    string            // plan/apply/pin: the reason to put rejected values in anyway
	color            bool              // resolved from --color, the terminal and NO_COLOR
	rendered         bool              // check --rendered: manifestdiff's sync-readiness findings at HEAD
	failOn           string            // check --fail-on: manifestdiff's --fail-on
}

// validate checks what flag parsing cannot: required flags, exclusive
// flags and positional arguments, as one-line usage errors.
func (o *options) validate(cmd *cobra.Command) error {
	if o.push && o.mergeRequest {
		return cli.Usagef(cmd, "--push and --merge-request are mutually exclusive")
	}
	if o.createBranch && !o.push {
		return cli.Usagef(cmd, "--create-branch goes with --push")
	}
	if o.pushTimeout < 0 {
		return cli.Usagef(cmd, "--push-timeout must not be negative")
	}
	if o.verb == "check" {
		if !slices.Contains([]string{"error", "warning", "never"}, o.failOn) {
			return cli.Usagef(cmd, "--fail-on %s: must be error, warning or never", o.failOn)
		}
		if !o.rendered && cmd.Flags().Changed("fail-on") {
			return cli.Usagef(cmd, "--fail-on sets the threshold of --rendered: add --rendered")
		}
	}
	switch o.verb {
	case "plan", "apply":
		switch {
		case o.from == "" && o.to == "":
			return cli.Usagef(cmd, "%s needs --from and --to", o.verb)
		case o.from == "":
			return cli.Usagef(cmd, "%s needs --from", o.verb)
		case o.to == "":
			return cli.Usagef(cmd, "%s needs --to", o.verb)
		}
	case "history":
		if o.env == "" {
			return cli.Usagef(cmd, "history needs --env")
		}
	case "rollback":
		switch {
		case o.env == "":
			return cli.Usagef(cmd, "rollback needs --env")
		case o.reason == "" || len(strings.TrimSpace(o.reason)) == 0:
			return cli.Usagef(cmd, "rollback needs --reason: it is recorded in the commit")
		case o.rollbackTo != "" && o.steps != 0:
			return cli.Usagef(cmd, "--to and --steps are mutually exclusive")
		case o.steps < 0:
			return cli.Usagef(cmd, "--steps must be positive")
		case o.planOnly && (o.push || o.mergeRequest):
			return cli.Usagef(cmd, "--plan writes nothing: it does not go with --push or --merge-request")
		}
	case "reject":
		if strings.TrimSpace(o.reason) == "" {
			return cli.Usagef(cmd, "reject needs --reason: it is recorded in the file and the commit")
		}
	case "pin":
		if o.env == "" {
			return cli.Usagef(cmd, "pin needs --env")
		}
		if len(o.args) == 0 {
			return cli.Usagef(cmd, "pin needs at least one KEY=VALUE")
		}
	}
	return nil
}

// previewOnly: plan, or rollback --plan; nothing is written.
func (o *options) previewOnly() bool { return o.verb == "plan" || o.planOnly }
