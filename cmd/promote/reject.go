package main

import (
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/history"
	"github.com/gitops-promote/gitops-promote/internal/promote"
	"github.com/gitops-promote/gitops-promote/internal/rejected"
)

func (f *factory) rejectCmd(verb string) *cobra.Command {
	o := &options{verb: verb}
	cmd := &cobra.Command{
		Use:   verb + " COMPONENT@VERSION --reason TEXT",
		Short: "Record a chart version or image tag as rejected, as one commit",
		Long: `Record a component's chart version or image tag as rejected in
rejected-versions.yaml at the repository root, as one commit
"chore(rejected): reject COMPONENT.FIELD@VERSION [skip ci]" (its author is
who rejected it). plan, apply and pin then refuse to put that value into
any environment, naming the reason and who rejected it, unless
--allow-rejected REASON is given (recorded in a Rejected-Overridden
trailer); check lists the environments still running it and status marks
them. COMPONENT@VERSION names the field holding VERSION in some
environment; COMPONENT.FIELD@VERSION names it outright.

--push and --merge-request work as for apply. unreject removes the entry.
See docs/rollback.md.`,
		Example: `  promote reject ledger-node.api@1.4.0 --reason "LEDGER-901: 5xx under load" --push
  promote reject ledger-node.api.imageTag@v3.2.0 --reason "CVE-2026-1234" --merge-request`,
		Args: cobra.ExactArgs(1),
	}
	if verb == "unreject" {
		cmd.Use = "unreject COMPONENT@VERSION"
		cmd.Short = "Remove a value from the rejected versions, as one commit"
		cmd.Long = `Remove COMPONENT@VERSION (or COMPONENT.FIELD@VERSION) from
rejected-versions.yaml, as one commit, so that it may be promoted again.
--push and --merge-request work as for apply. See promote reject.`
		cmd.Example = `  promote unreject ledger-node.api@1.4.0 --push`
	} else {
		cmd.Flags().StringVar(&o.reason, "reason", "", "why: recorded in the file and the commit (required)")
	}
	commitFlags(cmd, o)
	return f.verb(o, cmd, textOrJSON...)
}

// rejectBuild plans a reject or unreject on any tree.
func rejectBuild(cfg *config.Config, o *options) promote.BuildFunc {
	req := promote.RejectRequest{Spec: o.args[0], Reason: o.reason, Unreject: o.verb == "unreject"}
	return func(target, _ fs.FS) (*promote.Plan, error) { return promote.BuildReject(target, cfg, req) }
}

// rejectedPolicy refuses rejected values in plan, apply and pin, naming
// who rejected them (read along HEAD's history).
func rejectedPolicy(repo *git.Repo, o *options, getenv func(string) string) *promote.RejectedPolicy {
	return &promote.RejectedPolicy{Override: o.allowRejected, User: gateUser(repo, getenv),
		Who: func(e rejected.Entry) string {
			head, err := repo.Resolve("HEAD")
			if err != nil {
				return ""
			}
			return rejected.Who(repo, head, e, history.DefaultLimit)
		}}
}
