package promote

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
)

// MRService opens, updates and closes merge requests
// (internal/gitlab.Client).
type MRService interface {
	CheckProject(ctx context.Context, project string) error
	UpsertMR(ctx context.Context, spec gitlab.MRSpec) (gitlab.MRResult, error)
	CloseMR(ctx context.Context, spec gitlab.MRSpec, comment string) (gitlab.MRResult, bool, error)
}

// MergeRequest proposes a plan as a merge request instead of pushing it to
// the target branch, which is protected in most GitLab projects. It builds
// the plan on the remote target branch's tip and pushes one commit to a
// branch of its own; the local branch and work tree are not touched.
type MergeRequest struct {
	Apply   // repository, chart check, remote, target Branch, token, log
	GitLab  MRService
	Project string   // CI_PROJECT_ID: numeric id or group/project path
	Labels  []string // labels of the merge request
}

// MRRun is what a merge request run did.
type MRRun struct {
	Result
	SourceBranch string
	MR           gitlab.MRResult
	// Closed is set when the target already held every value and an open
	// merge request still proposed them: it was closed.
	Closed *gitlab.MRResult
}

// BranchFor names the merge request branch of a promotion or a pin.
func BranchFor(p *Plan, sets []KeyValue) string {
	if p.Verb == "promote" {
		return fmt.Sprintf("promote/%s-to-%s", p.From, p.To)
	}
	if p.Verb == "rollback" {
		return fmt.Sprintf("rollback/%s-to-%s", p.To, short(p.Rollback.To))
	}
	if p.Reject != nil {
		sum := sha256.Sum256([]byte(p.Reject.Key()))
		return fmt.Sprintf("%s/%s-%x", p.Verb, strings.ReplaceAll(p.Reject.Component, ".", "-"), sum[:4])
	}
	var kv []string
	for _, s := range sets {
		kv = append(kv, s.Key+"="+s.Value)
	}
	sort.Strings(kv)
	sum := sha256.Sum256([]byte(strings.Join(kv, "\n")))
	return fmt.Sprintf("pin/%s-%x", p.To, sum[:4])
}

// Run fetches the target branch, plans on its tip (the source environment
// read at the source revision, HEAD by default, as for --push), pushes the
// commit to branch(plan) (rebuilt on every run, and a fast-forward of the
// previous branch tip), and upserts the merge request.
func (m *MergeRequest) Run(ctx context.Context, build BuildFunc, branch func(*Plan) string) (*MRRun, error) {
	// A bad token, API URL or project fails here, before a branch is pushed
	// that no merge request would then carry.
	if err := m.GitLab.CheckProject(ctx, m.Project); err != nil {
		return nil, err
	}
	auth, err := m.remoteAuth()
	if err != nil {
		return nil, err
	}
	head, err := m.Repo.Head()
	if err != nil {
		return nil, err
	}
	src, err := m.sourceCommit(head.Hash)
	if err != nil {
		return nil, err
	}
	started := m.now()
	for attempt := 1; ; attempt++ {
		run, err := m.attempt(ctx, build, branch, auth, src)
		if err == nil {
			run.Attempts = attempt
			return run, nil
		}
		if !errors.Is(err, git.ErrRejected) {
			return nil, err
		}
		wait := backoff(attempt)
		if elapsed := m.now().Sub(started); elapsed+wait > m.pushTimeout() {
			return nil, fmt.Errorf("gave up after %d attempts in %s (--push-timeout %s), each rejected because the branch had moved; last error: %w",
				attempt, elapsed.Round(100*time.Millisecond), m.pushTimeout(), err)
		}
		m.log().Info(fmt.Sprintf("push %d of the merge request branch rejected: rebuilding", attempt))
		if err := m.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (m *MergeRequest) attempt(ctx context.Context, build BuildFunc, branch func(*Plan) string, auth git.Auth, src plumbing.Hash) (*MRRun, error) {
	tip, err := m.Repo.Fetch(ctx, m.Remote, m.Branch, auth)
	if errors.Is(err, git.ErrNoBranch) {
		return nil, fmt.Errorf("the merge request's target: %w; nothing was pushed", m.Repo.NoBranchError(ctx, m.Remote, m.Branch, auth))
	}
	if err != nil {
		return nil, err
	}
	if err := m.checkSource(src, tip, "nothing was pushed and no merge request branch was created"); err != nil {
		return nil, err
	}
	if m.Source == nil {
		src = tip // pin: no source environment
	}
	p, err := m.buildOn(tip, src, build)
	if err != nil {
		return nil, err
	}
	run := &MRRun{Result: Result{Plan: p, Base: tip.String(), Remote: m.Remote, Branch: m.Branch}, SourceBranch: branch(p)}
	if m.Source != nil {
		run.Source = src.String()
	}
	if len(p.Edits) == 0 {
		run.UpToDate = true // the target already holds every value: nothing to propose
		return run, m.closeStale(ctx, run, tip)
	}
	if err := m.gate(ctx, &run.Result, tip); err != nil {
		return nil, err
	}
	if err := m.checkCharts(ctx, p.Charts); err != nil {
		return nil, err
	}
	commit, err := m.branchCommit(ctx, run, tip, auth)
	if err != nil {
		return nil, err
	}
	run.Commit = commit.String()
	run.MR, err = m.GitLab.UpsertMR(ctx, gitlab.MRSpec{Project: m.Project, SourceBranch: run.SourceBranch, TargetBranch: m.Branch,
		Title: mrTitle(p), Description: mrDescription(p, tip.String(), run.Source, run.SourceBranch), Labels: m.Labels})
	if err != nil {
		return nil, fmt.Errorf("pushed %s to %s but the merge request failed: %w", commit.String()[:12], run.SourceBranch, err)
	}
	return run, nil
}

// closeStale closes the open merge request of run's branch, if any: what
// it proposes has reached the target some other way.
func (m *MergeRequest) closeStale(ctx context.Context, run *MRRun, tip plumbing.Hash) error {
	spec := gitlab.MRSpec{Project: m.Project, SourceBranch: run.SourceBranch, TargetBranch: m.Branch}
	comment := fmt.Sprintf("Closed by gitops-promote: `%s` already holds every value this merge request proposes (checked at `%s`).",
		m.Branch, tip.String()[:12])
	res, closed, err := m.GitLab.CloseMR(ctx, spec, comment)
	if err != nil {
		return fmt.Errorf("%s is up to date, but closing the merge request of %s failed: %w", m.Branch, run.SourceBranch, err)
	}
	if closed {
		run.Closed = &res // stated by the result, not logged (see Apply.Log)
	}
	return nil
}

// branchCommit builds the plan's commit on tip and pushes it to the merge
// request branch, unless that branch already holds exactly this change on
// top of tip.
func (m *MergeRequest) branchCommit(ctx context.Context, run *MRRun, tip plumbing.Hash, auth git.Auth) (plumbing.Hash, error) {
	prev, exists, err := m.Repo.FetchOptional(ctx, m.Remote, run.SourceBranch, auth)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var extra []plumbing.Hash
	if exists {
		if ok, err := m.Repo.IsAncestor(prev, tip); err != nil {
			return plumbing.ZeroHash, err
		} else if !ok {
			extra = []plumbing.Hash{prev}
		}
	}
	author, committer, err := m.Repo.Identity()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	// No [skip ci]: the merge request's pipeline (manifestdiff) must run.
	msg := strings.Replace(run.Plan.Message(m.sourceFor(&run.Result)), " [skip ci]", "", 1)
	commit, err := m.Repo.CommitFilesOnto(tip, extra, run.Plan.New, msg, author, committer, m.now())
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("writing the commit: %w", err)
	}
	if exists && m.sameChange(prev, commit, tip) {
		return prev, nil // run.Pushed stays false: the result says the branch was not pushed
	}
	if err := m.Repo.Push(ctx, m.Remote, run.SourceBranch, commit, auth); err != nil {
		return plumbing.ZeroHash, err
	}
	run.Pushed = true // stated by the result, not logged (see Apply.Log)
	return commit, nil
}

// sameChange: the branch already has this tree and already contains tip.
func (m *MergeRequest) sameChange(prev, commit, tip plumbing.Hash) bool {
	a, errA := m.Repo.CommitInfo(prev)
	b, errB := m.Repo.CommitInfo(commit)
	in, errC := m.Repo.IsAncestor(tip, prev)
	return errA == nil && errB == nil && errC == nil && in && a.Tree == b.Tree
}

func mrTitle(p *Plan) string {
	if p.Verb == "promote" {
		return fmt.Sprintf("chore(%s): promote versions from %s", p.To, p.From)
	}
	if p.Verb == "rollback" {
		return fmt.Sprintf("chore(%s): roll back to %s", p.To, short(p.Rollback.To))
	}
	if p.Reject != nil {
		return fmt.Sprintf("chore(rejected): %s %s", p.Verb, p.Reject.Key())
	}
	return fmt.Sprintf("chore(%s): pin %s", p.To, strings.Join(p.Components(), ", "))
}

func mrDescription(p *Plan, base, source, branch string) string {
	var b strings.Builder
	if p.Verb == "promote" {
		fmt.Fprintf(&b, "Promotes **%s → %s** with %s's values at `%s`, built on `%s`.\n\n", p.From, p.To, p.From, short(source), base[:12])
	} else if p.Reject != nil && p.Verb == "reject" {
		fmt.Fprintf(&b, "Rejects `%s`: no promotion may put it into any environment. Reason: %s\n\n", p.Reject.Key(), p.Reject.Reason)
	} else if p.Reject != nil {
		fmt.Fprintf(&b, "Unrejects `%s`.\n\n", p.Reject.Key())
	} else if p.Verb == "rollback" {
		fmt.Fprintf(&b, "Rolls **%s** back to its values at `%s`, built on `%s`. Reason: %s\n\n", p.To, short(p.Rollback.To), base[:12], oneLine(p.Rollback.Reason))
	} else {
		fmt.Fprintf(&b, "Pins versions in **%s**, built on `%s`.\n\n", p.To, base[:12])
	}
	b.WriteString("| Component | Key | From | To | Files |\n|---|---|---|---|---|\n")
	for _, r := range p.Rows {
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | `%s` | %s |\n", r.Component, r.Key, r.From, r.To, strings.Join(r.Files, "<br>"))
	}
	if len(p.Charts) > 0 {
		b.WriteString("\nCharts pinned:")
		for _, c := range p.Charts {
			fmt.Fprintf(&b, " `%s@%s`", c.Chart, c.Version)
		}
		b.WriteString("\n")
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "\n> note: %s\n", n.Message)
	}
	if p.Gates != nil && len(p.Gates.Results) > 0 {
		b.WriteString("\nGates (see docs/gates.md):\n")
		for _, l := range p.Gates.Lines() {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	fmt.Fprintf(&b, "\n_Branch `%s` is rebuilt by gitops-promote on every run; push no commits of your own to it._\n", branch)
	return b.String()
}

func (a *Apply) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}
