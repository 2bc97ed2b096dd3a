package promote

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"sync"
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

// BuildFunc plans against the tree of one commit.
type BuildFunc func(fsys fs.FS) (*Plan, error)

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
	Token  string // for HTTPS remotes; never printed
	Log    *slog.Logger
	Now    func() time.Time
	Sleep  func(context.Context, time.Duration) error
	// MaxAttempts bounds pushes (the first plus retries after rejection).
	MaxAttempts int
	// WarnIfDirty lists files (the source versions file) whose uncommitted
	// changes are worth a warning: promotions read committed values only.
	WarnIfDirty []string
}

// Result is what an apply (or a plan) did.
type Result struct {
	Plan     *Plan
	Base     string // commit the plan was built on
	Commit   string // the promotion commit; "" when up to date
	UpToDate bool
	Pushed   bool
	Attempts int
	Remote   string
	Branch   string
}

// PlanOnly builds the plan against HEAD and writes nothing.
func (a *Apply) PlanOnly(ctx context.Context, build BuildFunc) (*Result, error) {
	head, err := a.Repo.Head()
	if err != nil {
		return nil, err
	}
	p, err := a.buildAt(head.Hash, build)
	if err != nil {
		return nil, err
	}
	return &Result{Plan: p, Base: head.Hash.String(), UpToDate: len(p.Edits) == 0}, nil
}

// WarnDirty warns about uncommitted changes to the WarnIfDirty files (for
// plan, which checks nothing else).
func (a *Apply) WarnDirty() {
	if len(a.WarnIfDirty) > 0 {
		_, _ = a.dirty(nil)
	}
}

// dirty checks the touched files and the warn-only files with one read of
// the index (2 MB in a 20,000-file repository): it warns about the latter
// and returns the touched files that are dirty.
func (a *Apply) dirty(touched []string) ([]string, error) {
	dirty, err := a.Repo.DirtyPaths(append(slices.Clone(touched), a.WarnIfDirty...))
	if err != nil {
		return nil, err
	}
	var refused []string
	for _, d := range dirty {
		if slices.Contains(touched, d) {
			refused = append(refused, d)
		} else {
			a.log().Warn("uncommitted changes are not promoted; promoting the committed values", "file", d)
		}
	}
	return refused, nil
}

func (a *Apply) buildAt(commit plumbing.Hash, build BuildFunc) (*Plan, error) {
	fsys, err := a.Repo.TreeFS(commit)
	if err != nil {
		return nil, err
	}
	return build(fsys)
}

// Run plans against HEAD, verifies chart versions, refuses dirty touched
// files, then writes one commit from git objects, moves HEAD to it, updates
// the touched work-tree files atomically and, with Push, pushes it.
func (a *Apply) Run(ctx context.Context, build BuildFunc) (*Result, error) {
	if err := a.recoverInterrupted(); err != nil {
		return nil, err
	}
	res, err := a.PlanOnly(ctx, build)
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
	if dirty, err := a.dirty(p.Files()); err != nil {
		return nil, err
	} else if len(dirty) > 0 {
		return nil, fmt.Errorf("%s: %w", strings.Join(dirty, ", "), ErrDirty)
	}
	base := plumbing.NewHash(res.Base)
	commit, err := a.commit(base, p, res.Base)
	if err != nil {
		return nil, err
	}
	if err := a.writeJournal(base, commit, p.Files()); err != nil {
		return nil, err
	}
	if err := a.Repo.UpdateHead(base, commit); err != nil {
		a.clearJournal()
		return nil, fmt.Errorf("moving HEAD to the promotion commit: %w", err)
	}
	if err := a.Repo.WriteWorktree(p.New); err != nil {
		return nil, fmt.Errorf("committed %s but updating the work tree failed (re-run promote apply to finish it): %w",
			commit.String()[:12], err)
	}
	a.clearJournal()
	res.Commit = commit.String()
	a.log().Info("committed", "commit", res.Commit[:12], "files", len(p.New))
	if !a.Push {
		return res, nil
	}
	return res, a.pushLoop(ctx, res, build)
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

// checkCharts asks each chart's repository, in parallel, before anything
// is written.
func (a *Apply) checkCharts(ctx context.Context, refs []ChartRef) error {
	if a.Charts == nil || len(refs) == 0 {
		return nil
	}
	errs := make([]error, len(refs))
	var wg sync.WaitGroup
	for i, r := range refs {
		if r.RepoURL == "" {
			errs[i] = fmt.Errorf("cannot verify %s %s: no Helm source names its repository: %w", r.Chart, r.Version, ErrChartMissing)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := a.Charts.HasVersion(ctx, r.RepoURL, r.Chart, r.Version); err != nil {
				errs[i] = fmt.Errorf("%w: %w", err, ErrChartMissing)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (a *Apply) log() *slog.Logger {
	if a.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.Log
}
