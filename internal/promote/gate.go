package promote

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/gates"
)

// Gate checks a plan before anything is written. base is the branch
// commit whose history is searched for deployment statuses and whose
// target env is checked (HEAD for plan and apply, the remote tip once
// apply --push or --merge-request has fetched it); source is the commit
// the source env's values were read at. A non-nil error refuses.
type Gate func(ctx context.Context, base, source plumbing.Hash, p *Plan) error

// GatesFor evaluates the target env's gates of .promote.yaml for
// promotions (a pin has no source env to be healthy in) and keeps the
// report on the plan: its Gate-Overridden trailers go into the commit.
// Overrides map a gate name to the reason given for overriding it; user
// is who gave it.
func GatesFor(c *gates.Checker, overrides map[string]string, user string) Gate {
	return func(ctx context.Context, base, source plumbing.Hash, p *Plan) error {
		if p.Verb != "promote" {
			return nil
		}
		rep, err := c.Check(ctx, gates.Request{From: p.From, To: p.To, Only: p.Only, Base: base, Source: source,
			Overrides: overrides, User: user})
		if err != nil {
			return err
		}
		p.Gates = rep
		return rep.Err()
	}
}
