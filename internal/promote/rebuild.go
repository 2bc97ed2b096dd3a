package promote

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/patch"
)

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
		a.log().Info(fmt.Sprintf("%s already holds every value", where))
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
