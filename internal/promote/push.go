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
	"github.com/gitops-promote/gitops-promote/internal/patch"
)

// DefaultMaxAttempts bounds pushes of one apply.
const DefaultMaxAttempts = 10

// remoteAuth is the auth for --remote's URL: the token over HTTPS, the
// SSH agent over SSH.
func (a *Apply) remoteAuth() (git.Auth, error) {
	url, err := a.Repo.RemoteURL(a.Remote)
	if err != nil {
		return nil, err
	}
	return git.AuthFor(url, a.Token)
}

// pushLoop pushes the commit; on a non-fast-forward rejection it fetches
// the new tip, rebuilds the same field edits there as a compare-and-swap,
// and tries again with backoff. It never forces.
func (a *Apply) pushLoop(ctx context.Context, res *Result, build BuildFunc) error {
	auth, err := a.remoteAuth()
	if err != nil {
		return err
	}
	base, local := plumbing.NewHash(res.Base), plumbing.NewHash(res.Commit)
	max := a.MaxAttempts
	if max <= 0 {
		max = DefaultMaxAttempts
	}
	where := fmt.Sprintf("%s/%s", a.Remote, a.Branch)
	for attempt := 1; ; attempt++ {
		res.Attempts = attempt
		err := a.Repo.Push(ctx, a.Remote, a.Branch, local, auth)
		if err == nil {
			res.Pushed = true
			a.log().Info("pushed", "to", where, "commit", local.String()[:12], "attempts", attempt)
			return nil
		}
		if !errors.Is(err, git.ErrRejected) {
			return fmt.Errorf("pushing to %s (the commit %s stays on your local HEAD): %w", where, local.String()[:12], err)
		}
		if attempt >= max {
			return fmt.Errorf("pushing to %s: still rejected after %d attempts (the commit %s stays on your local HEAD): %w", where, attempt, local.String()[:12], err)
		}
		a.log().Info("push rejected, rebuilding on the new tip", "to", where, "attempt", attempt)
		if err := a.sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
		next, err := a.rebuildOnRemote(ctx, res, base, local, auth)
		if err != nil {
			return err
		}
		if next == plumbing.ZeroHash {
			res.UpToDate, res.Commit = true, ""
			return nil
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
	if exists {
		if in, err := a.Repo.IsAncestor(head, tip); err != nil || in {
			return err // in: the remote has it all
		}
	}
	pending, parent, err := a.pendingPlan(head, build)
	if err != nil {
		return err
	}
	if pending == nil && exists {
		// HEAD holds other history; what matters is whether the remote
		// holds the values.
		if p, err := a.buildAt(tip, build); err == nil && len(p.Edits) == 0 {
			a.log().Info("the remote already holds every value; your other local commits are not pushed", "to", where)
			return nil
		}
	}
	if pending == nil {
		return fmt.Errorf("%s is up to date locally, but %s lacks your local commits and the last one is not this promotion: "+
			"push them yourself (git push %s HEAD:%s)", res.Plan.To, where, a.Remote, a.Branch)
	}
	a.log().Info("pushing the promotion an earlier run committed but did not push", "commit", head.String()[:12])
	res.Plan, res.Base, res.Commit = pending, parent.String(), head.String()
	return a.pushLoop(ctx, res, build)
}

// pendingPlan rebuilds the plan on HEAD's parent and returns it, with the
// parent, when HEAD changes exactly the plan's files to exactly the plan's
// contents; nil when HEAD is anything else.
func (a *Apply) pendingPlan(head plumbing.Hash, build BuildFunc) (*Plan, plumbing.Hash, error) {
	info, err := a.Repo.CommitInfo(head)
	if err != nil || len(info.Parents) != 1 {
		return nil, plumbing.ZeroHash, err
	}
	parent := info.Parents[0]
	p, err := a.buildAt(parent, build)
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

// rebuildOnRemote fetches the remote tip and re-applies the plan there.
// It returns the new local commit, or ZeroHash when the remote already
// holds every new value.
func (a *Apply) rebuildOnRemote(ctx context.Context, res *Result, base, local plumbing.Hash, auth git.Auth) (plumbing.Hash, error) {
	tip, err := a.Repo.Fetch(ctx, a.Remote, a.Branch, auth)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if ok, err := a.Repo.IsAncestor(base, tip); err != nil {
		return plumbing.ZeroHash, err
	} else if !ok {
		return plumbing.ZeroHash, fmt.Errorf("%s/%s does not contain %s, the commit this promotion was built on: pull or rebase first (the promotion commit %s stays on your local HEAD)",
			a.Remote, a.Branch, base.String()[:12], local.String()[:12])
	}
	fsys, err := a.Repo.TreeFS(tip)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	p, err := Rebase(res.Plan, fsys)
	if err != nil {
		var ce *ConflictError
		if errors.As(err, &ce) {
			ce.Who = a.blame(base, tip, ce.Edit)
		}
		return plumbing.ZeroHash, fmt.Errorf("re-applying on %s/%s: %w", a.Remote, a.Branch, err)
	}
	target := tip
	if len(p.Edits) > 0 {
		if target, err = a.commit(tip, p, res.Base); err != nil {
			return plumbing.ZeroHash, err
		}
		res.Plan, res.Commit = p, target.String()
	}
	if err := a.Repo.SyncTo(local, target); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("moving the local branch to %s: %w", target.String()[:12], err)
	}
	if len(p.Edits) == 0 {
		return plumbing.ZeroHash, nil
	}
	return target, nil
}

// blame names the newest commit between base and tip that changed the
// edit's field, for the conflict message.
func (a *Apply) blame(base, tip plumbing.Hash, e Edit) string {
	for c := tip; c != base && c != plumbing.ZeroHash; {
		info, err := a.Repo.CommitInfo(c)
		if err != nil || len(info.Parents) == 0 {
			return ""
		}
		now, errNow := a.valueAt(c, e)
		before, errBefore := a.valueAt(info.Parents[0], e)
		if errNow == nil && (errBefore != nil || now != before) {
			return fmt.Sprintf("%s <%s> in %s (%q)", info.Author.Name, info.Author.Email, c.String()[:12], info.Subject)
		}
		c = info.Parents[0]
	}
	return ""
}

func (a *Apply) valueAt(c plumbing.Hash, e Edit) (string, error) {
	data, err := a.Repo.ReadFile(c, e.File)
	if err != nil {
		return "", err
	}
	f, err := patch.Parse(data)
	if err != nil {
		return "", err
	}
	t, err := locate(f, e)
	return t.Value, err
}

// backoff grows exponentially from 50 ms to a 2 s cap, with full jitter so
// racing pipelines spread out.
func backoff(attempt int) time.Duration {
	d := 50 * time.Millisecond << min(attempt, 6)
	d = min(d, 2*time.Second)
	return d/2 + rand.N(d/2+1)
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
