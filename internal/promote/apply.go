package promote

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/git"
)

var (
	// ErrDirty marks touched files with uncommitted changes.
	ErrDirty = errors.New("uncommitted changes in files the plan edits")
	// ErrChartMissing marks a chart version absent from its repository.
	ErrChartMissing = errors.New("chart version not found in its repository")
)

// BuildFunc plans against the tree of one commit (target), reading a
// promotion's source environment from another (source; the same tree
// unless --source-rev names another commit).
type BuildFunc func(target, source fs.FS) (*Plan, error)

// ChartChecker verifies that a chart version exists in a repository.
type ChartChecker interface {
	HasVersion(ctx context.Context, repoURL, chart, version string) error
}

// Apply commits a plan as one commit on HEAD and optionally pushes it.
type Apply struct {
	Repo   *git.Repo
	Charts ChartChecker // nil skips the chart check (--skip-chart-check)
	Push   bool
	Remote string
	Branch string
	// CreateBranch lets a push create Branch on the remote; otherwise a
	// branch the remote lacks is git.ErrNoBranch (a typo would push a
	// promotion where nobody reads it).
	CreateBranch bool
	Token        string // for HTTPS remotes; never printed
	// Log receives progress and warnings: what happens on the way (a
	// rejected push rebuilt on the new tip, a killed run recovered). What
	// a run did (the commit, the push, a merge request's fate) is stated
	// by its Result only, never logged as well, so a caller that prints
	// the Result and the log states each fact once.
	Log   *slog.Logger
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
	// PushTimeout bounds how long a rejected push is retried (rebuilt on
	// the new tip after a backoff); 0 is DefaultPushTimeout.
	PushTimeout time.Duration
	// Source is where a promotion reads its source environment; nil for
	// pin, which has none.
	Source *Source
	// WarnIfDirty lists files (the source versions file) whose uncommitted
	// changes are worth a warning: promotions read committed values only.
	WarnIfDirty []string
	// Gate checks a plan with edits before anything is written (the
	// deploy-aware gates of .promote.yaml); nil checks nothing.
	Gate Gate
}

// Result is what an apply (or a plan) did.
type Result struct {
	Plan     *Plan
	Base     string // commit the plan was built on
	Source   string // commit the source environment was read from ("" for pin)
	Commit   string // the promotion commit; "" when up to date
	UpToDate bool
	Pushed   bool
	Attempts int
	Remote   string
	Branch   string
	// start is HEAD before the run: a refused push puts it back.
	start plumbing.Hash
}

// PlanOnly builds the plan against HEAD (the source environment at the
// source revision), checks its gates as apply would, and writes nothing.
func (a *Apply) PlanOnly(ctx context.Context, build BuildFunc) (*Result, error) {
	res, err := a.plan(build)
	if err != nil {
		return nil, err
	}
	if err := a.gate(ctx, res, plumbing.ZeroHash); err != nil {
		return nil, err
	}
	return res, nil
}

// gate runs a.Gate on a plan with edits. The target env is read at tip
// (the remote branch once fetched) or else at the plan's base; statuses
// are walked from the same commit for plan and apply (StatusStart). An
// evaluation a signal cut short is an interruption, not a refusal.
func (a *Apply) gate(ctx context.Context, res *Result, tip plumbing.Hash) error {
	if a.Gate == nil || len(res.Plan.Edits) == 0 {
		return nil
	}
	at := GateCommits{Base: plumbing.NewHash(res.Base), Source: plumbing.NewHash(res.Base), Plan: plumbing.NewHash(res.Base)}
	if !tip.IsZero() {
		at.Base = tip
	}
	if res.Source != "" {
		at.Source = plumbing.NewHash(res.Source)
	}
	at.Statuses = a.StatusStart(res)
	err := a.Gate(ctx, at, res.Plan)
	if err != nil && ctx.Err() != nil {
		return interrupted(ctx, "evaluating the gates")
	}
	return err
}

// StatusStart is where the gates walk the history for deployment
// statuses: refs/remotes/<Remote>/<Branch> when the repository has it
// (apply --push and --merge-request have just fetched it; plan and a
// plain apply read it as last fetched, as the CI runner leaves it), else
// the source revision when one was named (--source-rev), else the plan's
// base. Argo CD reports on the remote's commits, so a plan and the apply
// it predicts read the same statuses.
func (a *Apply) StatusStart(res *Result) plumbing.Hash {
	if a.Remote != "" && a.Branch != "" {
		if h, err := a.Repo.Resolve("refs/remotes/" + a.Remote + "/" + a.Branch); err == nil {
			return h
		}
	}
	if a.Source != nil && a.Source.Rev != "" && res.Source != "" {
		return plumbing.NewHash(res.Source)
	}
	return plumbing.NewHash(res.Base)
}

// plan builds the plan against HEAD and writes nothing.
func (a *Apply) plan(build BuildFunc) (*Result, error) {
	head, err := a.Repo.Head()
	if err != nil {
		return nil, err
	}
	src, err := a.sourceCommit(head.Hash)
	if err != nil {
		return nil, err
	}
	p, err := a.buildOn(head.Hash, src, build)
	if err != nil {
		return nil, err
	}
	res := &Result{Plan: p, Base: head.Hash.String(), UpToDate: len(p.Edits) == 0, start: head.Hash}
	if a.Source != nil {
		res.Source = src.String()
	}
	return res, nil
}

// Run plans against HEAD, verifies chart versions, refuses dirty touched
// files and, with Push, a stale source environment; then it writes one
// commit from git objects, moves HEAD and the touched work-tree files to it
// in one journaled move and, with Push, pushes it.
func (a *Apply) Run(ctx context.Context, build BuildFunc) (*Result, error) {
	if err := a.recover(); err != nil {
		return nil, err
	}
	res, err := a.plan(build)
	if err != nil {
		return nil, err
	}
	res.Remote, res.Branch = a.Remote, a.Branch
	p := res.Plan
	if res.UpToDate {
		if a.Push {
			return res, a.pushPending(ctx, res, build)
		}
		return res, nil
	}
	if err := a.checkCharts(ctx, p.Charts); err != nil {
		return nil, err
	}
	if err := a.RefuseDirty(p.Files()); err != nil {
		return nil, err
	}
	base := plumbing.NewHash(res.Base)
	var tip plumbing.Hash
	var auth git.Auth
	if a.Push {
		// Before anything is written: a promotion planned with source
		// values the remote no longer has must leave no commit behind.
		if auth, err = a.remoteAuth(); err != nil {
			return nil, err
		}
		var exists bool
		if tip, exists, err = a.Repo.FetchOptional(ctx, a.Remote, a.Branch, auth); err != nil {
			return nil, fmt.Errorf("%w (nothing was committed)", err)
		}
		if !exists && !a.CreateBranch {
			return nil, fmt.Errorf("%w; nothing was committed", a.Repo.NoBranchError(ctx, a.Remote, a.Branch, auth))
		}
		if err := a.checkSource(plumbing.NewHash(res.Source), tip, "nothing was committed or pushed"); err != nil {
			return nil, err
		}
	}
	// Statuses are reported on the remote branch's commits: with --push
	// the gates read its history from the tip just fetched.
	if err := a.gate(ctx, res, tip); err != nil {
		return nil, err
	}
	commit, err := a.commit(base, p, a.sourceFor(res))
	if err != nil {
		return nil, err
	}
	if err := a.Repo.Move(git.Move{From: base, To: commit, Writes: p.New, Checked: true}); err != nil {
		if errors.Is(err, git.ErrRefMoved) {
			return nil, fmt.Errorf("moving HEAD to the promotion commit: %w", err)
		}
		return nil, fmt.Errorf("committed %s but updating the work tree failed (re-run promote to finish it): %w",
			commit.String()[:12], err)
	}
	res.Commit = commit.String() // stated by the result, not logged (see Log)
	if !a.Push {
		return res, nil
	}
	return res, a.pushLoop(ctx, res, build, auth, tip)
}

// sourceFor is the commit the trailer names: the source revision of a
// promotion, the base of a pin.
func (a *Apply) sourceFor(res *Result) string {
	if res.Source != "" {
		return res.Source
	}
	return res.Base
}

// recover finishes or rolls back whatever a killed run left in the
// repository (see git.Repo.Recover).
func (a *Apply) recover() error {
	rec, err := a.Repo.Recover()
	if err != nil || rec == nil {
		return err
	}
	if rec.Finished {
		a.log().Warn(fmt.Sprintf("finished the work tree of an interrupted run (commit %s)", short(rec.Commit)))
	} else {
		a.log().Warn(fmt.Sprintf("cleaned up after a run interrupted during its %s", rec.Op))
	}
	return nil
}

func (a *Apply) commit(parent plumbing.Hash, p *Plan, from string) (plumbing.Hash, error) {
	author, committer, err := a.Repo.Identity()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	h, err := a.Repo.CommitFiles(parent, p.New, p.Message(from), author, committer, now())
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("writing the commit: %w", err)
	}
	return h, nil
}

func (a *Apply) log() *slog.Logger {
	if a.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.Log
}
