package promote

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/gates"
)

// GateCommits are the commits a gate reads.
type GateCommits struct {
	// Base is the commit the target env is checked at: the plan's base
	// (HEAD), or the remote tip once apply --push or --merge-request has
	// fetched it.
	Base plumbing.Hash
	// Source is the commit the source env's values were read at.
	Source plumbing.Hash
	// Statuses is where the walk for deployment statuses starts: the
	// remote branch as last fetched (Argo CD reports on the remote's
	// commits), the same for plan and every kind of apply.
	Statuses plumbing.Hash
	// Plan is the commit the plan's edits were made on (its New files
	// are whole contents of that commit's files): the syncReady gate
	// renders the target env there and with them.
	Plan plumbing.Hash
}

// Gate checks a plan before anything is written. A non-nil error refuses.
type Gate func(ctx context.Context, at GateCommits, p *Plan) error

// GatesFor evaluates the target env's gates of .promote.yaml for
// promotions, and only its syncWindow for rollbacks (a pin has no source
// env to be healthy in, and is not gated), and keeps the
// report on the plan: its Gate-Overridden trailers go into the commit.
// Overrides map a gate name to the reason given for overriding it; user
// is who gave it.
func GatesFor(c *gates.Checker, overrides map[string]string, user string) Gate {
	return func(ctx context.Context, at GateCommits, p *Plan) error {
		req := gates.Request{From: p.From, To: p.To, Only: p.Only, Base: at.Base, Source: at.Source,
			Statuses: at.Statuses, Overrides: overrides, User: user, PlanBase: at.Plan, Files: p.New}
		switch p.Verb {
		case "promote":
		case "rollback":
			// Going back needs no healthy source nor soak time, but
			// still a sync window of the env it changes.
			req.From, req.WindowOnly = "rollback", true
		default:
			return nil
		}
		rep, err := c.Check(ctx, req)
		if err != nil {
			return err
		}
		p.Gates = rep
		return rep.Err()
	}
}
