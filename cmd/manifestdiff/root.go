package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
)

// extraCommands are verbs of special builds (man.go, -tags mangen).
var extraCommands []func() *cobra.Command

// runFunc runs the parsed and validated diff; tests swap it to see what a
// command line parses to.
type runFunc func(ctx context.Context, o *options) error

// newRootCmd builds the command tree: the diff itself on the root, with
// every flag defined here, plus version, completion and help.
func newRootCmd(ios *cli.IOStreams, run runFunc) *cobra.Command {
	o := &options{}
	var version bool
	cmd := &cobra.Command{
		Use:   "manifestdiff",
		Short: "Diff the rendered manifests of every Argo CD app between two git revisions",
		Long: `manifestdiff renders every Argo CD Application and ApplicationSet of a GitOps
repository at two git revisions, offline and as Argo CD would (Helm SDK,
destination namespace, $values refs, ApplicationSet git generators,
directory and kustomize sources), and diffs the results per Kubernetes
resource. Secret values never appear.

--base defaults to $CI_MERGE_REQUEST_DIFF_BASE_SHA, else the merge-base of
--head and origin/main; --head defaults to HEAD. Both are read from git
objects: the work tree does not matter.

Chart repository credentials and TLS settings come from Helm's files
(HELM_REPOSITORY_CONFIG, HELM_REGISTRY_CONFIG) and docker's config.json,
credential helpers included, and from HELM_REPO_USERNAME and
HELM_REPO_PASSWORD for the repositories HELM_REPO_URL names. Charts are
cached in --cache-dir.

Sources, $ref value files, git generators and kustomize remote bases in
other git repositories are fetched (go-git) at their targetRevision and
cached in --cache-dir/git. Over HTTPS, the host of .promote.yaml's repoURL
gets GIT_TOKEN, else GITLAB_TOKEN (as user oauth2), else CI_JOB_TOKEN (as
gitlab-ci-token); every other host, and that one when no token is set,
gets only its own entry of ~/.git-credentials (same scheme and host),
else of ~/.netrc (its machine line, else default). ssh:// and user@host:
URLs use the SSH agent. No credential is sent to another host or printed.

--post edits (or creates) the merge request's one note,
found again by a hidden marker, with CI_API_V4_URL, CI_PROJECT_ID and
CI_MERGE_REQUEST_IID (set by GitLab CI in merge request pipelines) and
GITLAB_TOKEN (a project or group access token with the api scope).

-o html writes one self-contained page (every diff, a filter; nothing
loaded from anywhere) to publish with artifacts:expose_as. The note links
each app to its place there: with -o html --output-file FILE --post in
GitLab CI, at $CI_JOB_URL/artifacts/file/FILE; else at --report-url.

--live also compares the head revision's apps of the envs listed in
.promote.yaml's live: with their cluster, the way kubectl diff
--server-side does, as Argo CD's field manager: objects a sync would
create, change or prune, and drift from the base revision. The cluster
comes from the standard kubeconfig rules (--kubeconfig, $KUBECONFIG,
~/.kube/config, in-cluster) and --context.

Exit codes: 0 success, 2 with --detailed-exitcode when anything changed
(with --live: also an object a sync would change, or drift), 1 on any
error, including an app that failed to render or an env whose cluster
could not be reached (every other app and env is still reported), and
when the change adds a sync-readiness error (see --fail-on), after the
whole report is written.`,
		Example: `  manifestdiff --base origin/main --head HEAD
  manifestdiff -o markdown --output-file manifest-diff.md --post
  manifestdiff -o html --output-file manifest-diff.html --post
  manifestdiff --env prod -o json --detailed-exitcode
  manifestdiff --env qa --live --context qa-readonly -o markdown --post`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if version {
				return cli.WriteVersion(ios.Out, "manifestdiff", "text")
			}
			if err := o.validate(cmd); err != nil {
				return err
			}
			for _, w := range cli.Warnings(cmd) {
				fmt.Fprintf(ios.ErrOut, "manifestdiff: warning: %s\n", w)
			}
			return run(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.base, "base", "", "base revision `REV` (default: $CI_MERGE_REQUEST_DIFF_BASE_SHA, else the merge-base of --head and origin/main)")
	fs.StringVar(&o.head, "head", "", "head revision `REV` (default: HEAD)")
	fs.StringSliceVar(&o.envs, "env", nil, "environment `ENV` to diff, repeatable (default: all)")
	o.output = formats[0]
	fs.VarP(outputValue{o}, "output", "o", "report format: diff (unified, coloured on a terminal), markdown (the merge request note), json or html (one self-contained page, a CI artifact)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	fs.StringVar(&o.outputFile, "output-file", "", "write the report to `FILE` (a CI artifact) instead of stdout, and a one-line summary to stderr")
	fs.StringVar(&o.reportURL, "report-url", "", "`URL` of this run's HTML report as published (a job artifact): the markdown note links every app to its place there "+
		"(default with -o html --output-file FILE --post in GitLab CI: $CI_JOB_URL/artifacts/file/FILE)")
	fs.BoolVar(&o.detailedExitCode, "detailed-exitcode", false, "exit 2 when any app is added, removed or changed (0 when none, 1 on errors)")
	fs.BoolVar(&o.all, "all", false, "also render the head revision of every unchanged app, for the sync-readiness checks (the diff is the same)")
	fs.StringVar(&o.failOn, "fail-on", "error", "exit 1 when the change adds a sync-readiness finding of `SEVERITY` or worse: error, warning, or never")
	fs.BoolVar(&o.post, "post", false, "edit the merge request's note to hold the markdown report (GitLab CI merge request pipelines)")
	fs.StringVar(&o.chartsDir, "charts-dir", "", "read packaged charts (<chart>-<version>.tgz) from `DIR` only, fully offline")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "cache `DIR`: downloaded charts in DIR, other git repositories in DIR/git (default: gitops-promote/charts and gitops-promote/git under the user cache dir)")
	fs.StringVar(&o.repo, "repo", "", "repository work tree `DIR` (default: the enclosing git work tree)")
	fs.BoolVar(&o.live, "live", false, "also compare the head revision with the cluster of each env listed in .promote.yaml's live: (a server-side apply dry run; nothing is written)")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig `FILE` for --live (default: $KUBECONFIG, else ~/.kube/config, else the in-cluster service account)")
	fs.StringVar(&o.kubeContext, "context", "", "kubeconfig context `NAME` for --live (default: the current context; an env's context: in live: wins)")
	fs.StringVar(&o.shard, "shard", "", "diff shard `INDEX/TOTAL` of the apps only (a stable share), for `manifestdiff merge` (default in a GitLab CI parallel: job: $CI_NODE_INDEX/$CI_NODE_TOTAL)")
	_ = cmd.MarkFlagFilename("kubeconfig")
	_ = cmd.MarkFlagDirname("repo")
	_ = cmd.MarkFlagDirname("charts-dir")
	_ = cmd.MarkFlagDirname("cache-dir")
	// the old spelling of -o, before --output meant the format in both tools
	fs.Var(&cli.Enum{Value: &o.output, Allowed: formats}, "format", "report format (deprecated: use -o/--output)")
	cli.Deprecate(cmd, "format", "use -o/--output")
	cli.VersionFlag(cmd, &version)
	cli.GlobalFlags(cmd, &o.Globals)
	cmd.AddCommand(cli.VersionCmd(ios), newMergeCmd(o, run))
	for _, extra := range extraCommands {
		cmd.AddCommand(extra())
	}
	cli.Configure(cmd, ios)
	return cmd
}
