package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// NoteLimit is the most characters GitLab accepts in one note.
const NoteLimit = 1_000_000

// MR names a merge request. Project is a numeric id or a group/project
// path (CI_PROJECT_ID or CI_PROJECT_PATH), IID is CI_MERGE_REQUEST_IID.
type MR struct {
	Project string
	IID     int64
}

func (mr MR) target() target { return target{project: mr.Project, mr: mr.IID} }

// NoteResult says what UpsertNote did, counted in notes.
type NoteResult struct {
	Created, Updated, Unchanged, Deleted int
	// URL links to page 1: the merge request's web_url + "#note_<id>".
	URL string
}

// UpsertNote makes the merge request carry exactly the given pages as
// notes. Each note starts with the marker line and a hidden "page N/M"
// line, which is how a later run finds it again: page 1 is edited in
// place or created, other pages likewise, pages beyond len(pages) are
// deleted, and a page whose body is unchanged is not written. A page may
// itself begin with the marker line (the report does); it is not doubled.
//
// Two runs at once on one merge request can both create a page; after
// creating, the notes are listed again and, per page, all but the oldest
// are deleted, so one note per page remains. Notes by other users are
// never touched unless they carry the marker.
func (c *Client) UpsertNote(ctx context.Context, mr MR, marker string, pages []string) (NoteResult, error) {
	bodies, err := noteBodies(mr, marker, pages)
	if err != nil {
		return NoteResult{}, err
	}
	webURL, err := c.mrWebURL(ctx, mr)
	if err != nil {
		return NoteResult{}, err
	}
	notes, err := c.ourNotes(ctx, mr, marker)
	if err != nil {
		return NoteResult{}, err
	}
	var res NoteResult
	keep, extra := byPage(notes, len(bodies))
	for _, n := range extra {
		if err := c.deleteNote(ctx, mr, n.id); err != nil {
			return res, err
		}
		res.Deleted++
	}
	ids, created, err := c.writePages(ctx, mr, keep, bodies, &res)
	if err != nil {
		return res, err
	}
	if created {
		if ids, err = c.dedupe(ctx, mr, marker, ids, bodies, &res); err != nil {
			return res, err
		}
	}
	res.URL = fmt.Sprintf("%s#note_%d", webURL, ids[0])
	return res, nil
}

// noteBodies checks the input and builds every page's full note body.
func noteBodies(mr MR, marker string, pages []string) ([]string, error) {
	if !strings.HasPrefix(marker, "<!--") || !strings.HasSuffix(marker, "-->") || strings.Contains(marker, "\n") {
		return nil, fmt.Errorf("note marker %q must be a one-line html comment", marker)
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("note on %s: no pages to post", mr.target())
	}
	bodies := make([]string, len(pages))
	for i, p := range pages {
		bodies[i] = noteBody(marker, i+1, len(pages), p)
		if n := utf8.RuneCountInString(bodies[i]); n > NoteLimit {
			return nil, fmt.Errorf("note on %s: %w: page %d of %d has %d characters, gitlab allows %d",
				mr.target(), ErrTooLarge, i+1, len(pages), n, NoteLimit)
		}
	}
	return bodies, nil
}

// PageLimit is the limit to give SplitMarkdown so that each page still
// fits in a note once UpsertNote adds its two hidden lines.
func PageLimit(marker string) int {
	return NoteLimit - len(noteBody(marker, 99999, 99999, ""))
}

func noteBody(marker string, n, m int, page string) string {
	if rest, ok := strings.CutPrefix(page, marker); ok && (rest == "" || rest[0] == '\n') {
		page = strings.TrimPrefix(rest, "\n")
	}
	return fmt.Sprintf("%s\n<!-- page %d/%d -->\n%s", marker, n, m, page)
}

// writePages updates or creates each page; it returns the note id per page
// and whether any note was created.
func (c *Client) writePages(ctx context.Context, mr MR, keep map[int]ourNote, bodies []string, res *NoteResult) ([]int64, bool, error) {
	ids := make([]int64, len(bodies))
	created := false
	for i, body := range bodies {
		n, ok := keep[i+1]
		switch {
		case ok && sameBody(n.body, body):
			res.Unchanged++
			ids[i] = n.id
			continue
		case ok:
			err := c.updateNote(ctx, mr, n.id, body)
			if err == nil {
				res.Updated++
				ids[i] = n.id
				continue
			}
			// Deleted meanwhile by a concurrent run: create it again.
			if !errors.Is(err, ErrNotFound) {
				return nil, false, err
			}
		}
		id, err := c.createNote(ctx, mr, body)
		if err != nil {
			return nil, false, err
		}
		res.Created++
		ids[i] = id
		created = true
	}
	return ids, created, nil
}

// sameBody compares as GitLab stores notes: it may trim the body and it
// normalises line ends.
func sameBody(a, b string) bool {
	norm := func(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n")) }
	return norm(a) == norm(b)
}
