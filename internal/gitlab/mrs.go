package gitlab

import (
	"context"
	"errors"
	"fmt"
	"slices"

	gl "gitlab.com/gitlab-org/api/client-go"
)

// MRSpec is the merge request a promotion wants open.
type MRSpec struct {
	Project                    string // numeric id or group/project path
	SourceBranch, TargetBranch string
	Title, Description         string
	Labels                     []string
}

// MRResult says which merge request now carries the spec.
type MRResult struct {
	URL     string
	IID     int64
	Created bool // false: an open one existed and was kept
	Updated bool // the existing one's title, description or labels changed
}

// UpsertMR finds the open merge request from SourceBranch to TargetBranch
// and brings its title, description and labels to the spec (writing only
// when they differ), or creates it. A create that loses a race with a
// concurrent run (409: one already exists for the branch) is turned into
// an update of the winner, so a branch never gets a second merge request.
func (c *Client) UpsertMR(ctx context.Context, spec MRSpec) (MRResult, error) {
	if spec.Project == "" || spec.SourceBranch == "" || spec.TargetBranch == "" || spec.Title == "" {
		return MRResult{}, errors.New("merge request: project, source branch, target branch and title are required")
	}
	m, err := c.findOpenMR(ctx, spec)
	if err != nil {
		return MRResult{}, err
	}
	if m == nil {
		created, cerr := c.createMR(ctx, spec)
		if cerr == nil {
			return MRResult{URL: created.WebURL, IID: created.IID, Created: true}, nil
		}
		if !errors.Is(cerr, ErrConflict) {
			return MRResult{}, cerr
		}
		if m, err = c.findOpenMR(ctx, spec); err != nil {
			return MRResult{}, err
		}
		if m == nil {
			return MRResult{}, fmt.Errorf("%w; listed again, no open merge request goes from %s to %s "+
				"(the existing one may target another branch)", cerr, spec.SourceBranch, spec.TargetBranch)
		}
	}
	res := MRResult{URL: m.WebURL, IID: m.IID}
	if m.Title == spec.Title && sameBody(m.Description, spec.Description) && sameLabels(m.Labels, spec.Labels) {
		return res, nil
	}
	if err := c.updateMR(ctx, spec, m.IID); err != nil {
		return MRResult{}, err
	}
	res.Updated = true
	return res, nil
}

func (c *Client) findOpenMR(ctx context.Context, spec MRSpec) (*gl.BasicMergeRequest, error) {
	opt := &gl.ListProjectMergeRequestsOptions{
		ListOptions:  gl.ListOptions{PerPage: 100},
		State:        gl.Ptr("opened"),
		SourceBranch: gl.Ptr(spec.SourceBranch),
		TargetBranch: gl.Ptr(spec.TargetBranch),
	}
	var list []*gl.BasicMergeRequest
	err := c.call(ctx, "list merge requests of", target{project: spec.Project}, true, func(ro gl.RequestOptionFunc) (*gl.Response, error) {
		var resp *gl.Response
		var err error
		list, resp, err = c.gl.MergeRequests.ListProjectMergeRequests(projectID(spec.Project), opt, ro)
		return resp, err
	})
	if err != nil {
		return nil, err
	}
	var best *gl.BasicMergeRequest
	for _, m := range list {
		// Filter again: a server that ignores a filter must not make us
		// edit someone else's merge request.
		if m.State != "opened" || m.SourceBranch != spec.SourceBranch || m.TargetBranch != spec.TargetBranch {
			continue
		}
		if best == nil || m.IID < best.IID {
			best = m
		}
	}
	return best, nil
}

func (c *Client) createMR(ctx context.Context, spec MRSpec) (*gl.MergeRequest, error) {
	labels := labelOpts(spec.Labels)
	var m *gl.MergeRequest
	err := c.call(ctx, "create merge request "+spec.SourceBranch+" -> "+spec.TargetBranch+" in", target{project: spec.Project}, false,
		func(ro gl.RequestOptionFunc) (*gl.Response, error) {
			var resp *gl.Response
			var err error
			m, resp, err = c.gl.MergeRequests.CreateMergeRequest(projectID(spec.Project), &gl.CreateMergeRequestOptions{
				Title: &spec.Title, Description: &spec.Description,
				SourceBranch: &spec.SourceBranch, TargetBranch: &spec.TargetBranch, Labels: labels,
			}, ro)
			return resp, err
		})
	return m, err
}

func (c *Client) updateMR(ctx context.Context, spec MRSpec, iid int64) error {
	labels := labelOpts(spec.Labels)
	return c.call(ctx, "update", target{project: spec.Project, mr: iid}, true, func(ro gl.RequestOptionFunc) (*gl.Response, error) {
		_, resp, err := c.gl.MergeRequests.UpdateMergeRequest(projectID(spec.Project), iid, &gl.UpdateMergeRequestOptions{
			Title: &spec.Title, Description: &spec.Description, Labels: labels,
		}, ro)
		return resp, err
	})
}

func sameLabels(have gl.Labels, want []string) bool {
	a, b := slices.Clone([]string(have)), slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// labelOpts is never nil: client-go sends a nil list as null, an empty one
// as "", and only "" tells GitLab to remove every label.
func labelOpts(l []string) *gl.LabelOptions {
	o := append(gl.LabelOptions{}, l...)
	return &o
}

// CheckProject reads the project: a cheap call that fails, with the usual
// hints, on a bad token, URL or project before anything else is done (a
// merge request run checks it before pushing its branch).
func (c *Client) CheckProject(ctx context.Context, project string) error {
	if project == "" {
		return errors.New("gitlab: project is required")
	}
	return c.call(ctx, "read", target{project: project}, true, func(ro gl.RequestOptionFunc) (*gl.Response, error) {
		_, resp, err := c.gl.Projects.GetProject(projectID(project), nil, ro)
		return resp, err
	})
}

// CloseMR closes the open merge request from spec's source to its target
// branch, after leaving comment on it; it reports whether there was one.
// A promotion whose values already reached the target closes the merge
// request that proposed them, rather than leave it open and stale.
func (c *Client) CloseMR(ctx context.Context, spec MRSpec, comment string) (MRResult, bool, error) {
	m, err := c.findOpenMR(ctx, spec)
	if err != nil || m == nil {
		return MRResult{}, false, err
	}
	t := target{project: spec.Project, mr: m.IID}
	if comment != "" {
		if _, err := c.createNote(ctx, MR{Project: spec.Project, IID: m.IID}, comment); err != nil {
			return MRResult{}, false, err
		}
	}
	err = c.call(ctx, "close", t, true, func(ro gl.RequestOptionFunc) (*gl.Response, error) {
		_, resp, err := c.gl.MergeRequests.UpdateMergeRequest(projectID(spec.Project), m.IID,
			&gl.UpdateMergeRequestOptions{StateEvent: gl.Ptr("close")}, ro)
		return resp, err
	})
	if err != nil {
		return MRResult{}, false, err
	}
	return MRResult{URL: m.WebURL, IID: m.IID}, true, nil
}
