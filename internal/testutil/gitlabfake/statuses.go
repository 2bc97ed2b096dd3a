package gitlabfake

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// CommitStatus is a commit status as the API returns it
// (GET /projects/:id/repository/commits/:sha/statuses and
// POST /projects/:id/statuses/:sha).
type CommitStatus struct {
	ID           int64      `json:"id"`
	SHA          string     `json:"sha"`
	Ref          string     `json:"ref"`
	Status       string     `json:"status"`
	Name         string     `json:"name"`
	TargetURL    *string    `json:"target_url"`
	Description  *string    `json:"description"`
	CreatedAt    time.Time  `json:"created_at"`
	StartedAt    *time.Time `json:"started_at"`
	FinishedAt   *time.Time `json:"finished_at"`
	AllowFailure bool       `json:"allow_failure"`
	Coverage     *float64   `json:"coverage"`
	PipelineID   int64      `json:"pipeline_id"`
	Author       User       `json:"author"`

	retried bool // superseded by a newer status of the same name and ref
}

// statusStates are the states POST accepts.
var statusStates = []string{"pending", "running", "success", "failed", "canceled", "skipped"}

func finished(state string) bool {
	return state == "success" || state == "failed" || state == "canceled" || state == "skipped"
}

// AddCommit makes commits known to the project, as a push would. Statuses
// of an unknown commit answer 404 Commit Not Found.
func (s *Server) AddCommit(proj string, shas ...string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustProject(proj)
	for _, sha := range shas {
		p.commits[sha] = true
	}
}

// SetNow sets the server's clock: the next status or note is created one
// second after t. Tests set it so statuses have the ages they need.
func (s *Server) SetNow(t time.Time) { s.locked(func() { s.now = t.Add(-time.Second) }) }

// AddStatus sets a commit status as POST /projects/:id/statuses/:sha would
// (same rules, same transitions), as user, and returns it.
func (s *Server) AddStatus(proj, sha, name, state, description, targetURL string) CommitStatus {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.project(proj)
	if p == nil || !p.commits[sha] {
		s.t.Fatalf("gitlabfake: no commit %s in %q", sha, proj)
	}
	st, code, msg := s.setStatus(p, sha, map[string]string{"state": state, "name": name,
		"description": description, "target_url": targetURL})
	if code != http.StatusCreated {
		s.t.Fatalf("gitlabfake: status %s on %s: %d %v", name, sha, code, msg)
	}
	return *st
}

// Statuses returns every status of a commit, retried ones too, oldest first.
func (s *Server) Statuses(proj, sha string) []CommitStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CommitStatus
	if p := s.project(proj); p != nil {
		for _, st := range p.statuses {
			if st.SHA == sha {
				out = append(out, *st)
			}
		}
	}
	return out
}

func (s *Server) serveStatuses(w http.ResponseWriter, r *http.Request, p *project, seg []string, route string) {
	sha, _ := url.PathUnescape(seg[len(seg)-1])
	if route == "statuses" {
		sha, _ = url.PathUnescape(seg[4])
	}
	if !p.commits[sha] {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "404 Commit Not Found"})
		return
	}
	if route == "status" {
		if r.Method != http.MethodPost {
			writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"message": "405 Method Not Allowed"})
			return
		}
		v := params(r)
		for k, vs := range r.URL.Query() { // curl users pass ?state=success
			if _, ok := v[k]; !ok {
				v[k] = vs[0]
			}
		}
		st, code, msg := s.setStatus(p, sha, v)
		if st == nil {
			writeJSON(w, code, msg)
			return
		}
		writeJSON(w, code, st)
		return
	}
	s.listStatuses(w, r, p, sha)
}

// setStatus applies GitLab's rules: a status of the same name and ref that
// is still pending or running moves to the new state (the same state again
// is a 400 transition error); a finished one is kept as retried and a new
// status is created.
func (s *Server) setStatus(p *project, sha string, v map[string]string) (*CommitStatus, int, any) {
	state := v["state"]
	if state == "" {
		return nil, http.StatusBadRequest, map[string]any{"error": "state is missing, state does not have a valid value"}
	}
	if !slices.Contains(statusStates, state) {
		return nil, http.StatusBadRequest, map[string]any{"error": "state does not have a valid value"}
	}
	name := cmp.Or(v["name"], v["context"], "default")
	ref := cmp.Or(v["ref"], "main")
	for _, f := range []string{"description", "target_url", "ref"} {
		if utf8.RuneCountInString(v[f]) > 255 {
			return nil, http.StatusBadRequest, map[string]any{"message": map[string]any{f: []string{"is too long (maximum is 255 characters)"}}}
		}
	}
	s.now = s.now.Add(time.Second)
	now := s.now
	var cur *CommitStatus
	for _, st := range p.statuses {
		if st.SHA == sha && st.Name == name && st.Ref == ref && !st.retried {
			cur = st
		}
	}
	if cur != nil && !finished(cur.Status) {
		if cur.Status == state {
			return nil, http.StatusBadRequest, map[string]any{"message": "Cannot transition status via :" + event(state) +
				" from :" + state + " (Reason(s): Status cannot transition via \"" + event(state) + "\")"}
		}
	} else {
		if cur != nil {
			cur.retried = true
		}
		s.nextID++
		cur = &CommitStatus{ID: s.nextID, SHA: sha, Ref: ref, Name: name, CreatedAt: now, PipelineID: 9000 + int64(len(p.commits)),
			Author: User{ID: 7, Username: s.opt.User, Name: s.opt.User}}
		p.statuses = append(p.statuses, cur)
	}
	cur.Status = state
	if d, ok := v["description"]; ok && d != "" {
		cur.Description = &d
	}
	if u, ok := v["target_url"]; ok && u != "" {
		cur.TargetURL = &u
	}
	if state == "running" && cur.StartedAt == nil {
		cur.StartedAt = &now
	}
	if finished(state) {
		cur.FinishedAt = &now
	}
	return cur, http.StatusCreated, nil
}

// event is the state machine event GitLab names in a transition error.
func event(state string) string {
	switch state {
	case "pending":
		return "enqueue"
	case "running":
		return "run"
	case "success":
		return "succeed"
	case "failed":
		return "drop"
	case "canceled":
		return "cancel"
	}
	return "skip"
}

// listStatuses filters by ref, name and pipeline_id, leaves out retried
// statuses unless all=true, orders by id or pipeline_id (asc by default)
// and pages.
func (s *Server) listStatuses(w http.ResponseWriter, r *http.Request, p *project, sha string) {
	q := r.URL.Query()
	orderBy, sort := cmp.Or(q.Get("order_by"), "id"), cmp.Or(q.Get("sort"), "asc")
	if orderBy != "id" && orderBy != "pipeline_id" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "order_by does not have a valid value"})
		return
	}
	if sort != "asc" && sort != "desc" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "sort does not have a valid value"})
		return
	}
	all := q.Get("all") == "true"
	var out []*CommitStatus
	for _, st := range p.statuses {
		switch {
		case st.SHA != sha, st.retried && !all:
		case q.Get("ref") != "" && q.Get("ref") != st.Ref:
		case q.Get("name") != "" && q.Get("name") != st.Name:
		case q.Get("pipeline_id") != "" && q.Get("pipeline_id") != strconv.FormatInt(st.PipelineID, 10):
		default:
			out = append(out, st)
		}
	}
	key := func(st *CommitStatus) int64 { return st.ID }
	if orderBy == "pipeline_id" {
		key = func(st *CommitStatus) int64 { return st.PipelineID }
	}
	slices.SortStableFunc(out, func(a, b *CommitStatus) int { return cmp.Compare(key(a), key(b)) })
	if sort == "desc" {
		slices.Reverse(out)
	}
	writePage(w, r, out, s.opt.PerPage)
}
