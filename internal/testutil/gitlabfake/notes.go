package gitlabfake

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Note is a merge request note as the API returns it.
type Note struct {
	ID           int64     `json:"id"`
	Body         string    `json:"body"`
	Author       User      `json:"author"`
	System       bool      `json:"system"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	NoteableID   int64     `json:"noteable_id"`
	NoteableIID  int64     `json:"noteable_iid"`
	Type         *string   `json:"type"`
	NoteableType string    `json:"noteable_type"`
	ProjectID    int64     `json:"project_id"`
}

// User is a note's author.
type User struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
}

// route serves one authenticated request; s.mu is held.
func (s *Server) route(w http.ResponseWriter, r *http.Request, seg []string, route string) {
	if route == "unknown" {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "404 Not Found"})
		return
	}
	id, _ := url.PathUnescape(seg[1])
	p := s.project(id)
	if p == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "404 Project Not Found"})
		return
	}
	if r.Method != http.MethodGet && s.opt.ReadOnly {
		writeJSON(w, http.StatusForbidden, map[string]any{"error": "insufficient_scope",
			"error_description": "The request requires higher privileges than provided by the access token.",
			"scope":             "api"})
		return
	}
	switch route {
	case "project":
		writeJSON(w, http.StatusOK, map[string]any{"id": p.id, "path_with_namespace": p.path,
			"web_url": s.srv.URL + "/" + p.path})
		return
	case "mrs":
		s.serveMRs(w, r, p)
		return
	case "statuses", "status":
		s.serveStatuses(w, r, p, seg, route)
		return
	}
	iid, _ := strconv.ParseInt(seg[3], 10, 64)
	mr := p.findMR(iid)
	if mr == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "404 Not found"})
		return
	}
	switch route {
	case "mr":
		s.serveMR(w, r, mr)
	case "notes":
		s.serveNotes(w, r, p, iid)
	case "note":
		noteID, _ := strconv.ParseInt(seg[5], 10, 64)
		s.serveNote(w, r, p, iid, noteID)
	}
}

func (s *Server) appendNote(p *project, iid int64, body, user string, system bool) *Note {
	s.nextID++
	s.now = s.now.Add(time.Second)
	n := &Note{ID: s.nextID, Body: body, Author: User{ID: 7, Username: user, Name: user},
		System: system, CreatedAt: s.now, UpdatedAt: s.now, NoteableID: 500 + iid, NoteableIID: iid,
		NoteableType: "MergeRequest", ProjectID: p.id}
	p.notes[iid] = append(p.notes[iid], n)
	return n
}

func (s *Server) serveNotes(w http.ResponseWriter, r *http.Request, p *project, iid int64) {
	if r.Method == http.MethodPost {
		if body, ok := checkBody(w, r); ok {
			writeJSON(w, http.StatusCreated, s.appendNote(p, iid, body, s.opt.User, false))
		}
		return
	}
	notes := slices.Clone(p.notes[iid])
	q := r.URL.Query()
	field := func(n *Note) time.Time { return n.CreatedAt }
	if q.Get("order_by") == "updated_at" {
		field = func(n *Note) time.Time { return n.UpdatedAt }
	}
	slices.SortStableFunc(notes, func(a, b *Note) int {
		return cmp.Or(field(a).Compare(field(b)), cmp.Compare(a.ID, b.ID))
	})
	if q.Get("sort") != "asc" { // GitLab's default is desc
		slices.Reverse(notes)
	}
	writePage(w, r, notes, s.opt.PerPage)
}

// checkBody applies GitLab's note validations.
func checkBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	body, ok := params(r)["body"]
	switch {
	case !ok || body == "":
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "400 Bad request - body is missing"})
		return "", false
	case utf8.RuneCountInString(body) > NoteLimit:
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": map[string]any{
			"note": []string{fmt.Sprintf("is too long (maximum is %d characters)", NoteLimit)}}})
		return "", false
	}
	return body, true
}

func (s *Server) serveNote(w http.ResponseWriter, r *http.Request, p *project, iid, id int64) {
	notes := p.notes[iid]
	i := slices.IndexFunc(notes, func(n *Note) bool { return n.ID == id })
	if i < 0 {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "404 Not found"})
		return
	}
	switch r.Method {
	case http.MethodDelete:
		p.notes[iid] = slices.Delete(notes, i, i+1)
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPut:
		body, ok := checkBody(w, r)
		if !ok {
			return
		}
		s.now = s.now.Add(time.Second)
		notes[i].Body, notes[i].UpdatedAt = body, s.now
		writeJSON(w, http.StatusOK, notes[i])
	default:
		writeJSON(w, http.StatusOK, notes[i])
	}
}

// writePage writes one page of items with GitLab's offset pagination
// headers (per_page defaults to 20 and is capped at maxPerPage).
func writePage[T any](w http.ResponseWriter, r *http.Request, items []T, maxPerPage int) {
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 20
	}
	per = min(per, 100, maxPerPage)
	total := len(items)
	pages := max((total+per-1)/per, 1)
	lo, hi := min((page-1)*per, total), min(page*per, total)
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	link := func(p int, rel string) string {
		u := *r.URL
		v := u.Query()
		v.Set("page", strconv.Itoa(p))
		v.Set("per_page", strconv.Itoa(per))
		u.RawQuery = v.Encode()
		return fmt.Sprintf(`<http://%s%s>; rel="%s"`, r.Host, u.RequestURI(), rel)
	}
	var links []string
	if page < pages {
		h.Set("X-Next-Page", strconv.Itoa(page+1))
		links = append(links, link(page+1, "next"))
	}
	if page > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(page-1))
		links = append(links, link(page-1, "prev"))
	}
	links = append(links, link(1, "first"), link(pages, "last"))
	h.Set("Link", strings.Join(links, ", "))
	writeJSON(w, http.StatusOK, items[lo:hi])
}
