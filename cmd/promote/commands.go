package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/promote"
)

// One constructor per verb: its usage, help and every flag it takes.
// Flags shared by several verbs are defined once, in the helpers below;
// every verb's --repo and -o come last, added by factory.verb.

// The -o of a verb (cli.OutputFlag's default, then the formats): text
// for what a person or a script reads once, a table on a terminal and
// markdown otherwise for an overview.
var (
	textOrJSON      = []string{"text", "text", "json"}
	tableOrMarkdown = []string{"", "table", "markdown", "json"}
)

func (f *factory) planCmd() *cobra.Command {
	o := &options{verb: "plan"}
	cmd := &cobra.Command{
		Use:   "plan --from SRC --to DST",
		Short: "Show what apply would commit, writing nothing",
		Long: `Print the changes a promotion from SRC to DST would make (component, key,
from -> to, files) and the exact unified diff apply would commit.

plan predicts apply: it refuses what apply refuses (a promotion path out
of order, a chartVersion downgrade, a floating version, a key missing in
the target, uncommitted changes in a file the promotion edits, ordering
findings in DST, the gates of DST configured in .promote.yaml) and takes
the same overrides. It writes nothing. It makes no network calls but
those the gates need (GitLab commit statuses, read along
refs/remotes/REMOTE/BRANCH as apply reads them, see docs/gates.md), so it
does not look chart versions up in their repositories; apply does.

Exit codes: 0 success, 1 any error, 2 changes with --detailed-exitcode,
3 a gate refused (or cannot be evaluated), for plan and apply alike.`,
		Example: `  promote plan --from qa --to preprod
  promote plan --from preprod --to prod --only ledger-node.api -o json
  promote plan --from qa --to preprod --detailed-exitcode   # exit 2 when there is something to promote`,
	}
	promotionFlags(cmd, o)
	remoteFlags(cmd, o, "`REMOTE` whose --branch the gates read deployment statuses along, as apply does",
		"`BRANCH` apply would promote into: the gates walk refs/remotes/REMOTE/BRANCH for statuses")
	cmd.Flags().BoolVar(&o.detailedExitCode, "detailed-exitcode", false,
		"exit 0 when there is nothing to promote, 2 when there are changes, 1 on errors (as terraform plan); 3 when a gate refused, with or without it")
	return f.verb(o, cmd, textOrJSON...)
}

func (f *factory) applyCmd() *cobra.Command {
	o := &options{verb: "apply"}
	cmd := &cobra.Command{
		Use:   "apply --from SRC --to DST",
		Short: "Promote versions from one environment to the next, as one commit",
		Long: `Copy every promoted value of SRC's versions file to DST's, and repin the
targetRevision of every Helm source of each component's chart in DST's
manifests, as one commit on HEAD:
"chore(DST): promote versions from SRC [skip ci]". New chart versions are
looked up in their chart repositories first.

SRC's values are read at HEAD, or at --source-rev REV (e.g. origin/main
after a fetch, or $CI_COMMIT_SHA). With --push or --merge-request the
remote --branch is fetched first; if SRC's values there differ from the
ones read and --source-rev was not given, nothing is committed or pushed:
each differing field is listed, pull first or name the revision.

With --push the commit is pushed to --remote/--branch; a rejected push is
never forced: the same edits are re-applied on the new tip as a
compare-and-swap and pushed again, with jittered backoff, for up to
--push-timeout. A field someone changed to a third value stops the run,
moves the branch to the remote tip and says what re-running will do. If
a push fails, re-running the same command pushes the commit it left on
HEAD.

With --merge-request (for a protected branch) the change is built on the
remote --branch's tip, pushed to promote/SRC-to-DST, and its GitLab merge
request is opened or updated; nothing local moves. It needs CI_API_V4_URL
and CI_PROJECT_ID (set by GitLab CI) and GITLAB_TOKEN (a project or group
access token with the api scope, stored as a masked CI/CD variable).

A gate of DST in .promote.yaml that refuses exits 3, before anything is
written (docs/gates.md).`,
		Example: `  promote apply --from qa --to preprod --push
  promote apply --from preprod --to prod --merge-request
  promote apply --from qa --to preprod --only ledger-node.api,gateway --push`,
	}
	promotionFlags(cmd, o)
	commitFlags(cmd, o)
	return f.verb(o, cmd, textOrJSON...)
}

func (f *factory) pinCmd() *cobra.Command {
	o := &options{verb: "pin"}
	cmd := &cobra.Command{
		Use:   "pin --env ENV KEY=VALUE...",
		Short: "Set fields of one environment, as one commit",
		Long: `Set fields of one environment's versions file, as one commit. A KEY is a
component's key path plus one existing field, e.g.
ledger-node.api.imageTag=v3.2.0. A chartVersion also repins the
targetRevision of every Helm source of that chart in ENV's manifests.
Flags and KEY=VALUE arguments may be interleaved. --push and
--merge-request work as for apply.`,
		Example: `  promote pin --env qa ledger-node.api.imageTag=v3.2.0 ledger-node.api.chartVersion=1.4.0 --push`,
		Args:    cobra.ArbitraryArgs, // KEY=VALUE...; validate requires one
	}
	cmd.Flags().StringVar(&o.env, "env", "", "environment `ENV` to pin (required)")
	completeEnvs(cmd, o, "env")
	cmd.Flags().BoolVar(&o.allowDowngrade, "allow-downgrade", false, "allow a chartVersion to go down")
	allowRejectedFlag(cmd, o)
	commitFlags(cmd, o)
	return f.verb(o, cmd, textOrJSON...)
}

func (f *factory) checkCmd() *cobra.Command {
	o := &options{verb: "check"}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "List every finding in the repository; exit 1 if there is any",
		Long: `List every finding and exit 1 if there is any: a targetRevision that
differs from its environment's chartVersion, an unpinned version, a
component without a Helm source (or a Helm source without a component),
a templated revision, a file that does not parse; and the ordering rules:
a sync-wave that is not an integer, a gitops-promote/depends-on edge to an
app that is missing or not in an earlier wave, a dependency cycle, an
empty or missing RollingSync step, auto-sync in a manualSync environment,
an app missing from one environment or in another wave there; and the
AppProject sync windows (appProjects and each environment's manifests):
a window Argo CD rejects or misreads (kind, schedule, duration, unknown
time zone), a schedule that never fires, a deny window active around the
clock, an AppProject defined twice.

Each finding is one line, "file:line: ENV [rule] message" (the location
left out when there is none); -o json lists them with their rule ids.

With --rendered, every app of each environment is also rendered at HEAD
by manifestdiff (found beside promote, else on PATH) and checked for what
Argo CD would refuse at sync (AppProject permissions, removed APIs, ...):
its findings follow, one line each as manifestdiff prints them, or under
syncReadiness in -o json; an error finding (see --fail-on) or an app that
cannot be rendered makes the exit 1.`,
		Example: `  promote check
  promote check --env prod -o json
  promote check --rendered --env prod --fail-on warning`,
	}
	envsFlag(cmd, o, "environment `ENV` to check, repeatable (default: all)")
	cmd.Flags().BoolVar(&o.rendered, "rendered", false, "also render every app at HEAD with manifestdiff and report its sync-readiness findings")
	cmd.Flags().StringVar(&o.failOn, "fail-on", "error", "with --rendered, exit 1 on a sync-readiness finding of `SEVERITY` or worse: error, warning, or never")
	return f.verb(o, cmd, textOrJSON...)
}

func (f *factory) wavesCmd() *cobra.Command {
	o := &options{verb: "waves"}
	cmd := &cobra.Command{
		Use:   "waves",
		Short: "Show the order Argo CD syncs each environment in",
		Long: `Print, per environment, every Application and ApplicationSet by sync-wave
(0 when absent, and marked), with the apps each RollingSync step selects.
A table on a terminal, markdown otherwise (for a merge request or a wiki),
or JSON.`,
		Example: `  promote waves --env prod
  promote waves -o markdown > waves.md`,
	}
	envsFlag(cmd, o, "environment `ENV` to show, repeatable (default: all)")
	return f.verb(o, cmd, tableOrMarkdown...)
}

func (f *factory) statusCmd() *cobra.Command {
	o := &options{verb: "status"}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show every environment at a glance",
		Long: `Show every environment at a glance, read from the git objects of --rev
(the work tree does not matter): per component and environment the chart
version and image tag, marked when the previous environment holds other
values (pending promotion) or when a Helm source pins another chart
version than the versions file (drift); per environment the last promotion
into it (when, who, from which environment and commit, gate overrides, from
promote's commit trailers), the sync window (open or closed, and when that
changes) and, when CI_API_V4_URL, CI_PROJECT_ID and GITLAB_TOKEN are set,
the deployment health Argo CD reported as argocd/<app> commit statuses
(one request per commit read, at most 20 commits); and what each step of
the environment path would promote. See docs/gates.md.

A table on a terminal, markdown otherwise (for a merge request or a wiki),
or JSON.`,
		Example: `  promote status
  promote status -o markdown > environments.md
  promote status --rev origin/main -o json`,
	}
	cmd.Flags().StringVar(&o.rev, "rev", "HEAD", "read the repository at `REV` (branch, tag or commit)")
	cmd.Flags().BoolVar(&o.noGitLab, "no-gitlab", false, "do not read deployment health from GitLab, even when it is configured")
	return f.verb(o, cmd, tableOrMarkdown...)
}

func (f *factory) initCmd() *cobra.Command {
	o := &options{verb: "init"}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Draft .promote.yaml from the repository layout",
		Long: `Draft .promote.yaml from the repository layout for you to review:
environments from versions/*.yaml, manifests argocd/{env}/*.yaml, each
chart matched to the versions entry it pins, repoURL from the ref: sources
or the origin remote. It refuses to overwrite an existing file and
validates the draft before writing it.`,
	}
	return f.verb(o, cmd)
}

// promotionFlags are plan's and apply's: what to promote, and the policy
// overrides, so that plan can preview exactly what apply will do.
func promotionFlags(cmd *cobra.Command, o *options) {
	fs := cmd.Flags()
	fs.StringVar(&o.from, "from", "", "promote from environment `SRC` (required)")
	fs.StringVar(&o.to, "to", "", "promote to environment `DST` (required)")
	fs.StringSliceVar(&o.only, "only", nil, "promote only these components, `C1,C2` or repeated (default: all)")
	fs.BoolVar(&o.forcePath, "force-path", false, "allow a source environment other than the one just before the target")
	fs.BoolVar(&o.ignoreOrdering, "ignore-ordering", false, "promote despite ordering findings in the target (the commit records it)")
	fs.BoolVar(&o.allowDowngrade, "allow-downgrade", false, "allow a chartVersion to go down")
	fs.StringVar(&o.sourceRev, "source-rev", "", "read SRC's values at revision `REV` (default: HEAD); e.g. origin/main after a fetch")
	completeEnvs(cmd, o, "from", "to")
	completeComponents(cmd, o, "only")
	allowRejectedFlag(cmd, o)
	for _, g := range []struct{ gate, what string }{
		{config.GateSourceHealthy, "the source env is not reported healthy on the promoted values"},
		{config.GateMinSoak, "it has not been healthy for the minSoak time"},
		{config.GateSyncWindow, "the target env's sync windows are closed"},
		{config.GateSyncReady, "the target env would get a new sync-readiness error"},
	} {
		fs.Var(&overrideValue{&o.overrides, g.gate}, strings.TrimPrefix(gateFlags[g.gate], "--"),
			"promote although "+g.what+"; `REASON` and who gave it are recorded in a Gate-Overridden commit trailer (gates in .promote.yaml, docs/gates.md)")
	}
}

// allowRejectedFlag: plan's, apply's and pin's override of promote reject.
func allowRejectedFlag(cmd *cobra.Command, o *options) {
	cmd.Flags().StringVar(&o.allowRejected, "allow-rejected", "",
		"put rejected values in anyway (promote reject); `REASON` and who gave it are recorded in a Rejected-Overridden commit trailer")
}

// overrideValue stores one gate's override reason in *m (made on first use).
type overrideValue struct {
	m    *map[string]string
	gate string
}

func (v *overrideValue) String() string { return (*v.m)[v.gate] }
func (v *overrideValue) Type() string   { return "REASON" }
func (v *overrideValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("give a reason: it is recorded in the commit")
	}
	if *v.m == nil {
		*v.m = map[string]string{}
	}
	(*v.m)[v.gate] = s
	return nil
}

// commitFlags are apply's and pin's: where the commit goes.
func commitFlags(cmd *cobra.Command, o *options) {
	fs := cmd.Flags()
	fs.BoolVar(&o.push, "push", false, "push the commit to --remote/--branch")
	fs.BoolVar(&o.mergeRequest, "merge-request", false,
		"push to a promotion branch and open or update its GitLab merge request into --branch (instead of --push)")
	remoteFlags(cmd, o, "`REMOTE` to push to", "remote `BRANCH` to push to, or to open the merge request into")
	fs.BoolVar(&o.createBranch, "create-branch", false, "with --push, create --branch on the remote when it has no such branch")
	fs.BoolVar(&o.skipChartCheck, "skip-chart-check", false, "do not look new chart versions up in their repositories")
	fs.DurationVar(&o.pushTimeout, "push-timeout", promote.DefaultPushTimeout, "how long to rebuild and retry a rejected push, e.g. `10m`")
}

// remoteFlags: where a commit goes (apply, pin), and for every promotion
// where the gates read deployment statuses (refs/remotes/REMOTE/BRANCH).
func remoteFlags(cmd *cobra.Command, o *options, remote, branch string) {
	cmd.Flags().StringVar(&o.remote, "remote", "origin", remote)
	cmd.Flags().StringVar(&o.branch, "branch", "main", branch)
}

func repoFlag(cmd *cobra.Command, o *options) {
	cmd.Flags().StringVar(&o.repo, "repo", "", "repository work tree `DIR` (default: the enclosing git work tree)")
	_ = cmd.MarkFlagDirname("repo")
}

func envsFlag(cmd *cobra.Command, o *options, usage string) {
	cmd.Flags().StringSliceVar(&o.envs, "env", nil, usage)
	completeEnvs(cmd, o, "env")
}
