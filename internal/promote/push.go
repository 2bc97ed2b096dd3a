package promote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/git"
)

// DefaultPushTimeout bounds how long a rejected push is rebuilt and
// retried. The budget is time, not attempts: under contention every
// attempt can lose to another pusher, and a slow machine makes fewer.
const DefaultPushTimeout = 5 * time.Minute

// remoteAuth is the auth for --remote's URL: the token over HTTPS, the
// SSH agent over SSH.
func (a *Apply) remoteAuth() (git.Auth, error) {
	url, err := a.Repo.RemoteURL(a.Remote)
	if err != nil {
		return nil, err
	}
	return git.AuthFor(url, a.Token)
}

func (a *Apply) pushTimeout() time.Duration {
	if a.PushTimeout > 0 {
		return a.PushTimeout
	}
	return DefaultPushTimeout
}

// pushLoop pushes res.Commit. When the remote branch has moved (tip, if
// the caller fetched it, or a rejected push) it rebuilds the same field
// edits on the new tip as a compare-and-swap, moves the local branch
// there, and tries again after a jittered backoff, until the push timeout.
// It never forces.
func (a *Apply) pushLoop(ctx context.Context, res *Result, build BuildFunc, auth git.Auth, tip plumbing.Hash) error {
	started := a.now()
	base, local := plumbing.NewHash(res.Base), plumbing.NewHash(res.Commit)
	where := a.Remote + "/" + a.Branch
	if !tip.IsZero() && tip != base {
		// Already known to be rejected: rebuild before the first push.
		a.log().Info(fmt.Sprintf("%s has moved to %s: rebuilding the promotion on it", where, short(tip.String())))
		next, err := a.rebuild(res, build, base, local, tip)
		if err != nil || next.IsZero() {
			return err
		}
		local = next
	}
	for attempt := 1; ; attempt++ {
		res.Attempts = attempt
		err := a.Repo.Push(ctx, a.Remote, a.Branch, local, auth)
		if err == nil {
			res.Pushed = true // stated by the result, not logged (see Apply.Log)
			return nil
		}
		if !errors.Is(err, git.ErrRejected) {
			return fmt.Errorf("pushing to %s (the commit %s stays on your local HEAD; re-run to push it): %w", where, short(local.String()), err)
		}
		wait := backoff(attempt)
		if elapsed := a.now().Sub(started); elapsed+wait > a.pushTimeout() {
			return fmt.Errorf("pushing to %s: gave up after %d attempts in %s (--push-timeout %s), each rebuilt on the new tip and rejected again; "+
				"the commit %s stays on your local HEAD (re-run to push it); last error: %w",
				where, attempt, elapsed.Round(100*time.Millisecond), a.pushTimeout(), short(local.String()), err)
		}
		a.log().Info(fmt.Sprintf("push %d to %s rejected: rebuilding on the new tip", attempt, where))
		if err := a.sleep(ctx, wait); err != nil {
			return err
		}
		tip, err := a.Repo.Fetch(ctx, a.Remote, a.Branch, auth)
		if err != nil {
			return fmt.Errorf("%w (the commit %s stays on your local HEAD; re-run to push it)", err, short(local.String()))
		}
		next, err := a.rebuild(res, build, base, local, tip)
		if err != nil || next.IsZero() {
			return err
		}
		local = next
	}
}

// pushPending finishes the push of an earlier apply: HEAD already holds
// every value, so the plan is up to date, but the push may have failed
// (credentials, network). If the remote lacks HEAD and HEAD is exactly
// this plan's commit on its parent, that commit is pushed like a new one,
// rebuilt on the remote tip if the remote moved meanwhile. Any other
// unpushed local history is the user's to push: it is named, not pushed,
// and is an error only when the remote lacks some of the values.
func (a *Apply) pushPending(ctx context.Context, res *Result, build BuildFunc) error {
	auth, err := a.remoteAuth()
	if err != nil {
		return err
	}
	where := a.Remote + "/" + a.Branch
	head := plumbing.NewHash(res.Base)
	tip, exists, err := a.Repo.FetchOptional(ctx, a.Remote, a.Branch, auth)
	if err != nil {
		return fmt.Errorf("checking %s for an unpushed promotion: %w", where, err)
	}
	if !exists && !a.CreateBranch {
		return fmt.Errorf("%w; nothing was pushed", a.Repo.NoBranchError(ctx, a.Remote, a.Branch, auth))
	}
	if exists {
		if in, err := a.Repo.IsAncestor(head, tip); err != nil || in {
			return err // in: the remote has it all
		}
	}
	pending, parent, err := a.pendingPlan(res, head, build)
	if err != nil {
		return err
	}
	if pending == nil && exists {
		// HEAD holds other history; what matters is whether the remote
		// holds the values.
		if p, err := a.buildOn(tip, a.sourceOr(res, tip), build); err == nil && len(p.Edits) == 0 {
			a.log().Info(fmt.Sprintf("%s already holds every value; your other local commits are not pushed", where))
			return nil
		}
	}
	if pending == nil {
		return fmt.Errorf("%s is up to date locally, but %s lacks your local commits and the last one is not this promotion: "+
			"push them yourself (git push %s HEAD:%s)", res.Plan.To, where, a.Remote, a.Branch)
	}
	if a.Source != nil && a.Source.Rev == "" {
		res.Source = parent.String() // what the earlier run read; HEAD only adds the target's edits
	}
	if err := a.checkSource(plumbing.NewHash(res.Source), tip, "nothing was pushed"); err != nil {
		var se *SourceMismatchError
		if errors.As(err, &se) {
			se.Pending = head.String()
		}
		return err
	}
	// The result states that this run pushed the commit an earlier one
	// made (see Apply.Log); an error says what stays unpushed.
	res.Plan, res.Base, res.Commit = pending, parent.String(), head.String()
	return a.pushLoop(ctx, res, build, auth, tip)
}

// sourceOr is the commit to read the source environment from when
// planning on commit: the named source revision, else commit itself.
func (a *Apply) sourceOr(res *Result, commit plumbing.Hash) plumbing.Hash {
	if a.Source != nil && a.Source.Rev != "" {
		return plumbing.NewHash(res.Source)
	}
	return commit
}

// pendingPlan rebuilds the plan on HEAD's parent and returns it, with the
// parent, when HEAD changes exactly the plan's files to exactly the plan's
// contents; nil when HEAD is anything else.
func (a *Apply) pendingPlan(res *Result, head plumbing.Hash, build BuildFunc) (*Plan, plumbing.Hash, error) {
	info, err := a.Repo.CommitInfo(head)
	if err != nil || len(info.Parents) != 1 {
		return nil, plumbing.ZeroHash, err
	}
	parent := info.Parents[0]
	p, err := a.buildOn(parent, a.sourceOr(res, parent), build)
	if err != nil || len(p.Edits) == 0 {
		return nil, plumbing.ZeroHash, nil // not this promotion on its parent
	}
	writes, deletes, err := a.Repo.Changes(parent, head)
	if err != nil || len(deletes) > 0 || len(writes) != len(p.New) {
		return nil, plumbing.ZeroHash, nil
	}
	for f, data := range p.New {
		if got, ok := writes[f]; !ok || !bytes.Equal(got, data) {
			return nil, plumbing.ZeroHash, nil
		}
	}
	return p, parent, nil
}

// backoff grows exponentially from 100 ms to a 4 s cap, with full jitter
// (anywhere from zero to the cap) so that racing pipelines spread out
// rather than retry in step.
func backoff(attempt int) time.Duration {
	d := 100 * time.Millisecond << min(attempt-1, 5)
	d = min(d, 4*time.Second)
	return time.Millisecond + rand.N(d)
}

func (a *Apply) sleep(ctx context.Context, d time.Duration) error {
	if a.Sleep != nil {
		return a.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
