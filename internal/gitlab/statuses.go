package gitlab

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"
)

// CommitStatus is one commit status as GitLab lists it; Argo CD
// Notifications posts one per app, named "argocd/<app>".
type CommitStatus struct {
	ID          int64     `json:"id"`
	SHA         string    `json:"sha"`
	Ref         string    `json:"ref,omitempty"`
	Name        string    `json:"name"`
	Status      string    `json:"status"` // pending, running, success, failed, canceled, skipped
	Description string    `json:"description,omitempty"`
	TargetURL   string    `json:"targetURL,omitempty"`
	Author      string    `json:"author,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	FinishedAt  time.Time `json:"finishedAt,omitzero"`
}

// maxStatusPages bounds one commit's listing: 20 pages of 100 statuses is
// far more than the apps of all environments together.
const maxStatusPages = 20

// ErrTooManyStatuses marks a commit whose listing did not end within
// maxStatusPages pages.
var ErrTooManyStatuses = errors.New("too many commit statuses")

// StatusReader is what gates and status views need of GitLab.
type StatusReader interface {
	CheckProject(ctx context.Context, project string) error
	CommitStatuses(ctx context.Context, project, sha string) ([]CommitStatus, error)
}

var _ StatusReader = (*Client)(nil)

// CommitStatuses lists the latest statuses of commit sha (GitLab's default:
// a status retried by a newer one of the same name is left out), following
// pagination, each page retried like every other call. GitLab answers 404
// both for a commit it does not know (not pushed yet) and for a project
// the token cannot see, and client-go drops the body that tells them
// apart: the error wraps ErrNotFound, and WalkStatuses, which checks the
// project first, reads it as "no statuses".
func (c *Client) CommitStatuses(ctx context.Context, project, sha string) ([]CommitStatus, error) {
	opt := &gl.GetCommitStatusesOptions{ListOptions: gl.ListOptions{PerPage: 100, Page: 1}}
	op := "list statuses of commit " + short(sha) + " in"
	var out []CommitStatus
	for range maxStatusPages {
		var page []*gl.CommitStatus
		var resp *gl.Response
		err := c.call(ctx, op, target{project: project}, true, func(ro gl.RequestOptionFunc) (*gl.Response, error) {
			var err error
			page, resp, err = c.gl.Commits.GetCommitStatuses(projectID(project), sha, opt, ro)
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, s := range page {
			out = append(out, convertStatus(s))
		}
		if resp.NextPage <= opt.Page {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
	return nil, fmt.Errorf("%s project %s: %w (more than %d pages)", op, project, ErrTooManyStatuses, maxStatusPages)
}

func convertStatus(s *gl.CommitStatus) CommitStatus {
	out := CommitStatus{ID: s.ID, SHA: s.SHA, Ref: s.Ref, Name: s.Name, Status: s.Status,
		Description: s.Description, TargetURL: s.TargetURL, Author: s.Author.Username}
	if s.CreatedAt != nil {
		out.CreatedAt = *s.CreatedAt
	}
	if s.FinishedAt != nil {
		out.FinishedAt = *s.FinishedAt
	}
	return out
}

// WalkStatuses checks the project (so a bad URL, token or project fails
// once, with its reason), then lists the statuses of the commits shas
// yields, in order, one listing per commit, and hands each to visit until
// visit returns false, shas ends, or limit commits have been listed. A
// commit GitLab does not know has no statuses. It returns how many commits
// were listed. The history walk is the caller's (git knows the order); the
// bound is here, so no caller pages through GitLab without one.
func WalkStatuses(ctx context.Context, r StatusReader, project string, shas iter.Seq[string], limit int,
	visit func(sha string, statuses []CommitStatus) bool) (int, error) {
	if err := r.CheckProject(ctx, project); err != nil {
		return 0, err
	}
	n := 0
	for sha := range shas {
		if n >= limit {
			break
		}
		st, err := r.CommitStatuses(ctx, project, sha)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return n, err
		}
		n++
		if !visit(sha, st) {
			break
		}
	}
	return n, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
