package promote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/patch"
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
		a.log().Info("the remote branch has moved, rebuilding on its tip", "to", where, "tip", short(tip.String()))
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
			res.Pushed = true
			a.log().Info("pushed", "to", where, "commit", short(local.String()), "attempts", attempt)
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
		a.log().Info("push rejected, rebuilding on the new tip", "to", where, "attempt", attempt)
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
			a.log().Info("the remote already holds every value; your other local commits are not pushed", "to", where)
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
		return err
	}
	a.log().Info("pushing the promotion an earlier run committed but did not push", "commit", short(head.String()))
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

// rebuild re-applies the plan on the remote tip as a compare-and-swap,
// commits it there and moves the local branch from local to that commit.
// It returns the new commit, or ZeroHash when the remote already holds
// every value (the local branch then moves to the tip). A stale source
// environment puts HEAD back where the run found it; a field someone
// changed to a third value moves the local branch to the tip, without
// this run's commit, so that re-running builds on the new values.
func (a *Apply) rebuild(res *Result, build BuildFunc, base, local, tip plumbing.Hash) (plumbing.Hash, error) {
	where := a.Remote + "/" + a.Branch
	if ok, err := a.Repo.IsAncestor(base, tip); err != nil {
		return plumbing.ZeroHash, err
	} else if !ok {
		return plumbing.ZeroHash, fmt.Errorf("%s does not contain %s, the commit this promotion was built on: pull or rebase first (the promotion commit %s stays on your local HEAD)",
			where, short(base.String()), short(local.String()))
	}
	if err := a.checkSource(plumbing.NewHash(res.Source), tip, "nothing was pushed"); err != nil {
		return plumbing.ZeroHash, a.rollback(res, local, err)
	}
	fsys, err := a.Repo.TreeFS(tip)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	p, err := Rebase(res.Plan, fsys)
	var ce *ConflictError
	if errors.As(err, &ce) {
		ce.Who, ce.Remote = a.blame(base, tip, ce.Edit), where
		ce.Next = a.resetToTip(res, build, local, tip)
		return plumbing.ZeroHash, ce
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("re-applying on %s: %w", where, err)
	}
	target := tip
	if len(p.Edits) > 0 {
		if target, err = a.commit(tip, p, a.sourceFor(res)); err != nil {
			return plumbing.ZeroHash, err
		}
		res.Plan, res.Commit = p, target.String()
	}
	if err := a.Repo.Move(git.Move{From: local, To: target}); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("moving the local branch to %s: %w", short(target.String()), err)
	}
	if len(p.Edits) == 0 {
		res.UpToDate, res.Commit = true, ""
		a.log().Info("the remote already holds every value", "to", where)
		return plumbing.ZeroHash, nil
	}
	return target, nil
}

// rollback puts HEAD, the index and the files back where the run found
// them, after cause refused the push.
func (a *Apply) rollback(res *Result, local plumbing.Hash, cause error) error {
	if local == res.start || res.start.IsZero() {
		return cause
	}
	if err := a.Repo.Move(git.Move{From: local, To: res.start}); err != nil {
		return fmt.Errorf("%w; putting your branch back at %s failed, it holds the promotion commit %s: %v",
			cause, short(res.start.String()), short(local.String()), err)
	}
	res.Commit = ""
	return cause
}

// resetToTip moves the local branch from local to the remote tip, dropping
// this run's commit after a lost conflict, and says exactly what
// re-running the same command will then do.
func (a *Apply) resetToTip(res *Result, build BuildFunc, local, tip plumbing.Hash) string {
	where := a.Remote + "/" + a.Branch
	if err := a.Repo.Move(git.Move{From: local, To: tip}); err != nil {
		return fmt.Sprintf("nothing was pushed; your branch still holds the promotion commit %s (moving it to %s failed: %v): "+
			"run git reset --keep %s, then re-run to promote on top of the new values", short(local.String()), where, err, where)
	}
	res.Commit = ""
	src := tip
	if a.Source != nil && a.Source.Rev != "" {
		// the re-run resolves the revision again, after this run's fetch
		if h, err := a.Repo.Resolve(a.Source.Rev); err == nil {
			src = h
		}
	}
	next := fmt.Sprintf("nothing was pushed, and your branch now matches %s (%s)", where, short(tip.String()))
	p, err := a.buildOn(tip, src, build)
	switch {
	case err != nil:
		return fmt.Sprintf("%s: re-running the same command would refuse: %s", next, oneLine(err.Error()))
	case len(p.Edits) == 0:
		return next + ": re-running the same command finds nothing to do"
	}
	var sets []string
	for _, r := range p.Rows {
		sets = append(sets, fmt.Sprintf("set %s.%s from %s to %s", r.Component, r.Key, r.From, r.To))
	}
	return fmt.Sprintf("%s: re-running the same command will %s on top of it", next, strings.Join(sets, ", "))
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
