// Package gitlabfake is an in-process double of the slice of the GitLab
// REST API v4 that gitops-promote uses: projects, merge requests and their
// notes, with GitLab's paths, JSON shapes, offset pagination headers,
// error bodies (401, 403, 404, 409, 429, note too long) and note size
// limit. It sits at the HTTP boundary so the real client-go talks to it.
//
// It is for tests only: New takes a testing.TB and closes the server in
// t.Cleanup. Every request is logged with its headers and body, so a test
// can check where the token went.
package gitlabfake

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// DefaultToken is the token a Server accepts when Options.Token is empty.
// It is recognisable ("SECRET") so that leaks are easy to grep for.
const DefaultToken = "glpat-SECRETtoken123456"

// NoteLimit is the most characters GitLab accepts in one note body.
const NoteLimit = 1_000_000

// Options configures New; the zero value is a usable GitLab.
type Options struct {
	// Token is the one token accepted (PRIVATE-TOKEN or Bearer); default
	// DefaultToken. Anything else is answered 401.
	Token string
	// PerPage caps per_page below GitLab's 100 to force pagination.
	PerPage int
	// User is the token's user name, the author of notes it writes;
	// default "project_42_bot" (what a project access token looks like).
	User string
	// ReadOnly makes the token lack the api scope: writes answer 403.
	ReadOnly bool
}

// Server is one fake GitLab instance. Its methods are safe for concurrent
// use with the requests it serves.
type Server struct {
	t   testing.TB
	srv *httptest.Server
	opt Options

	mu          sync.Mutex
	projects    []*project
	nextID      int64
	now         time.Time
	calls       map[string]int        // "METHOD route", e.g. "PUT note"
	queries     map[string]url.Values // last query per "METHOD route"
	failures    []failure
	log         []Request
	listBarrier *barrier
}

type project struct {
	id    int64
	path  string
	mrs   []*MR
	notes map[int64][]*Note // by merge request iid
	// commits GitLab knows (pushed), and their statuses (statuses.go)
	commits  map[string]bool
	statuses []*CommitStatus
}

// New starts a server with no projects; see AddProject.
func New(t testing.TB, opt Options) *Server {
	t.Helper()
	if opt.Token == "" {
		opt.Token = DefaultToken
	}
	if opt.PerPage <= 0 || opt.PerPage > 100 {
		opt.PerPage = 100
	}
	if opt.User == "" {
		opt.User = "project_42_bot"
	}
	s := &Server{t: t, opt: opt, nextID: 1000, now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		calls: map[string]int{}, queries: map[string]url.Values{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the API base, as in CI_API_V4_URL: http://127.0.0.1:PORT/api/v4.
func (s *Server) URL() string { return s.srv.URL + "/api/v4" }

// WebURL is the instance root that web_url values start with.
func (s *Server) WebURL() string { return s.srv.URL }

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Token is the token the server accepts.
func (s *Server) Token() string { return s.opt.Token }

// SetToken changes the accepted token, e.g. to revoke the one a client
// already holds.
func (s *Server) SetToken(tok string) { s.locked(func() { s.opt.Token = tok }) }

// SetReadOnly gives the token or takes away the api scope.
func (s *Server) SetReadOnly(ro bool) { s.locked(func() { s.opt.ReadOnly = ro }) }

// SetPerPage changes the per_page cap (1..100).
func (s *Server) SetPerPage(n int) { s.locked(func() { s.opt.PerPage = min(max(n, 1), 100) }) }

func (s *Server) locked(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn()
}

// AddProject registers a project under a numeric id and a
// group/project path; requests may name it by either.
func (s *Server) AddProject(id int64, path string) {
	s.locked(func() {
		s.projects = append(s.projects, &project{id: id, path: path, notes: map[int64][]*Note{}, commits: map[string]bool{}})
	})
}

// AddMR opens a merge request in project (id or path) and returns it.
func (s *Server) AddMR(proj string, iid int64, src, dst string) MR {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustProject(proj)
	m := s.newMR(p, iid, src, dst, "Draft: "+src, "", nil)
	p.mrs = append(p.mrs, m)
	return *m
}

// AddNote adds a note by user to a merge request, as another user or
// GitLab itself (system) would.
func (s *Server) AddNote(proj string, iid int64, user, body string, system bool) Note {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, _ := s.mustMR(proj, iid)
	return *s.appendNote(p, iid, body, user, system)
}

// Notes returns a merge request's notes in creation order.
func (s *Server) Notes(proj string, iid int64) []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.project(proj)
	if p == nil {
		return nil
	}
	out := make([]Note, 0, len(p.notes[iid]))
	for _, n := range p.notes[iid] {
		out = append(out, *n)
	}
	return out
}

// MRs returns a project's merge requests in creation order.
func (s *Server) MRs(proj string) []MR {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.project(proj)
	if p == nil {
		return nil
	}
	out := make([]MR, 0, len(p.mrs))
	for _, m := range p.mrs {
		c := *m
		c.Labels = slices.Clone(m.Labels)
		out = append(out, c)
	}
	return out
}

// Calls counts requests by "METHOD route" (routes: project, mrs, mr,
// notes, note, statuses, status, unknown; e.g. "POST notes", "PUT note",
// "GET statuses") or "total",
// including those answered with a queued failure or 401.
func (s *Server) Calls(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[key]
}

// AllCalls returns a copy of every counter.
func (s *Server) AllCalls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.calls)
}

// Writes counts requests other than GET and HEAD.
func (s *Server) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			n++
		}
	}
	return n
}

// LastQuery is the query string of the last "METHOD route" request.
func (s *Server) LastQuery(key string) url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[key]
}

// Requests returns the log of every request served, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// SyncNoteLists makes the next n note listings wait for each other before
// answering, each with the notes as they were when it arrived: n
// concurrent runs then all see the same notes, as in a real race.
func (s *Server) SyncNoteLists(n int) { s.locked(func() { s.listBarrier = newBarrier(n) }) }

// project finds a project by numeric id or path; s.mu is held.
func (s *Server) project(idOrPath string) *project {
	for _, p := range s.projects {
		if idOrPath == strconv.FormatInt(p.id, 10) || idOrPath == p.path {
			return p
		}
	}
	return nil
}

// mustProject is the project named proj (id or path), for a test's
// setup: an unknown one fails the test. The caller holds mu.
func (s *Server) mustProject(proj string) *project {
	s.t.Helper()
	p := s.project(proj)
	if p == nil {
		s.t.Fatalf("gitlabfake: no project %q", proj)
	}
	return p
}

// mustMR is merge request iid of project proj and the project, for a
// test's setup: an unknown one fails the test. The caller holds mu.
func (s *Server) mustMR(proj string, iid int64) (*project, *MR) {
	s.t.Helper()
	p := s.project(proj)
	if p == nil || p.findMR(iid) == nil {
		s.t.Fatalf("gitlabfake: no merge request !%d in %q", iid, proj)
	}
	return p, p.findMR(iid)
}

func (p *project) findMR(iid int64) *MR {
	for _, m := range p.mrs {
		if m.IID == iid {
			return m
		}
	}
	return nil
}
