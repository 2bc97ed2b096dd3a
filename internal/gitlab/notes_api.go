package gitlab

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"
)

// ourNote is a note carrying the marker.
type ourNote struct {
	id   int64
	page int
	body string
}

// maxListPages stops a misbehaving server from paging forever:
// 10,000 pages of 100 notes is far beyond any real merge request.
const maxListPages = 10_000

// ourNotes lists every note of the merge request, following pagination to
// the end, and keeps those whose first line is the marker, oldest first.
func (c *Client) ourNotes(ctx context.Context, mr MR, marker string) ([]ourNote, error) {
	opt := &gl.ListMergeRequestNotesOptions{
		ListOptions: gl.ListOptions{PerPage: 100, Page: 1},
		OrderBy:     gl.Ptr("created_at"),
		Sort:        gl.Ptr("asc"),
	}
	var ours []ourNote
	for range maxListPages {
		var notes []*gl.Note
		var resp *gl.Response
		err := c.call(ctx, "list notes on", mr.target(), true, func(ro gl.RequestOptionFunc) (*gl.Response, error) {
			var err error
			notes, resp, err = c.gl.Notes.ListMergeRequestNotes(projectID(mr.Project), mr.IID, opt, ro)
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, n := range notes {
			if page, ok := parseOurs(n, marker); ok {
				ours = append(ours, ourNote{id: n.ID, page: page, body: n.Body})
			}
		}
		if resp.NextPage <= opt.Page {
			break
		}
		opt.Page = resp.NextPage
	}
	// GitLab's note ids grow with creation time, and unlike created_at
	// they never tie: "oldest" below means lowest id.
	sort.Slice(ours, func(i, j int) bool { return ours[i].id < ours[j].id })
	return ours, nil
}

// parseOurs reports whether n is one of our pages and which. A marked note
// without a page line is from a single-note version: it counts as page 1.
func parseOurs(n *gl.Note, marker string) (int, bool) {
	if n.System {
		return 0, false
	}
	first, rest, _ := strings.Cut(n.Body, "\n")
	if strings.TrimRight(first, " \r") != marker {
		return 0, false
	}
	line, _, _ := strings.Cut(rest, "\n")
	var p, m int
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "<!-- page %d/%d -->", &p, &m); err != nil || p < 1 {
		return 1, true
	}
	return p, true
}

// byPage picks, per wanted page, the oldest note; every other marked note
// (duplicates, pages beyond want) is extra.
func byPage(notes []ourNote, want int) (map[int]ourNote, []ourNote) {
	keep := map[int]ourNote{}
	var extra []ourNote
	for _, n := range notes {
		if _, dup := keep[n.page]; dup || n.page > want {
			extra = append(extra, n)
			continue
		}
		keep[n.page] = n
	}
	return keep, extra
}

// dedupe resolves a race with a concurrent run: both may have created the
// same page. Listing again, every run keeps the oldest note per page and
// deletes the rest (deleting an already deleted note is fine); a run whose
// own note is not the survivor then writes its body into the survivor, so
// each page ends up once, with one run's content.
func (c *Client) dedupe(ctx context.Context, mr MR, marker string, ids []int64, bodies []string, res *NoteResult) ([]int64, error) {
	notes, err := c.ourNotes(ctx, mr, marker)
	if err != nil {
		return nil, err
	}
	keep, extra := byPage(notes, len(bodies))
	for _, n := range extra {
		if n.page > len(bodies) {
			continue // another run's longer report: its pages, its call
		}
		if err := c.deleteNote(ctx, mr, n.id); err != nil {
			return nil, err
		}
		res.Deleted++
	}
	for i, body := range bodies {
		old, ok := keep[i+1]
		if !ok || old.id == ids[i] {
			continue
		}
		ids[i] = old.id
		if !sameBody(old.body, body) {
			if err := c.updateNote(ctx, mr, old.id, body); err != nil {
				return nil, err
			}
			res.Updated++
		}
	}
	return ids, nil
}

func (c *Client) mrWebURL(ctx context.Context, mr MR) (string, error) {
	var m *gl.MergeRequest
	err := c.call(ctx, "read", mr.target(), true, func(ro gl.RequestOptionFunc) (*gl.Response, error) {
		var resp *gl.Response
		var err error
		m, resp, err = c.gl.MergeRequests.GetMergeRequest(projectID(mr.Project), mr.IID, nil, ro)
		return resp, err
	})
	if err != nil {
		return "", err
	}
	return m.WebURL, nil
}

func (c *Client) createNote(ctx context.Context, mr MR, body string) (int64, error) {
	var n *gl.Note
	// Not idempotent: a repeated POST after a lost response would add a
	// note; dedupe would remove it, but only 429/5xx are retried anyway.
	err := c.call(ctx, "create note on", mr.target(), false, func(ro gl.RequestOptionFunc) (*gl.Response, error) {
		var resp *gl.Response
		var err error
		n, resp, err = c.gl.Notes.CreateMergeRequestNote(projectID(mr.Project), mr.IID,
			&gl.CreateMergeRequestNoteOptions{Body: &body}, ro)
		return resp, err
	})
	if err != nil {
		return 0, err
	}
	return n.ID, nil
}

func (c *Client) updateNote(ctx context.Context, mr MR, id int64, body string) error {
	return c.call(ctx, fmt.Sprintf("update note %d on", id), mr.target(), true, func(ro gl.RequestOptionFunc) (*gl.Response, error) {
		_, resp, err := c.gl.Notes.UpdateMergeRequestNote(projectID(mr.Project), mr.IID, id,
			&gl.UpdateMergeRequestNoteOptions{Body: &body}, ro)
		return resp, err
	})
}

// deleteNote treats an already deleted note as success: a concurrent run
// may have removed the same duplicate.
func (c *Client) deleteNote(ctx context.Context, mr MR, id int64) error {
	err := c.call(ctx, fmt.Sprintf("delete note %d on", id), mr.target(), true, func(ro gl.RequestOptionFunc) (*gl.Response, error) {
		return c.gl.Notes.DeleteMergeRequestNote(projectID(mr.Project), mr.IID, id, ro)
	})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}
