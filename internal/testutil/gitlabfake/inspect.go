package gitlabfake

import (
	"fmt"
	"strings"
)

// SetMRState sets a merge request's state (opened, closed, merged), as a
// reviewer closing or merging it would.
func (s *Server) SetMRState(proj string, iid int64, state string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	_, m := s.mustMR(proj, iid)
	m.State = state
}

// Leaks lists every place a request carried secret other than the two
// headers GitLab reads a token from (PRIVATE-TOKEN and "Authorization:
// Bearer"): path, query, body or any other header. It also lists a note
// or merge request whose text contains it. Empty means no leak.
func (s *Server) Leaks(secret string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, r := range s.log {
		where := fmt.Sprintf("request %d (%s %s)", i, r.Method, r.Path)
		if strings.Contains(r.Path, secret) || strings.Contains(r.Query, secret) {
			out = append(out, where+": url")
		}
		if strings.Contains(r.Body, secret) {
			out = append(out, where+": body")
		}
		for k, vs := range r.Header {
			for _, v := range vs {
				// Keys are canonical here: PRIVATE-TOKEN arrives as Private-Token.
				allowed := (k == "Private-Token" && v == secret) || (k == "Authorization" && v == "Bearer "+secret)
				if !allowed && strings.Contains(v, secret) {
					out = append(out, where+": header "+k)
				}
			}
		}
	}
	for _, p := range s.projects {
		for _, m := range p.mrs {
			if strings.Contains(m.Title+m.Description+strings.Join(m.Labels, ","), secret) {
				out = append(out, fmt.Sprintf("merge request !%d in %s", m.IID, p.path))
			}
		}
		for iid, notes := range p.notes {
			for _, n := range notes {
				if strings.Contains(n.Body, secret) {
					out = append(out, fmt.Sprintf("note %d on !%d in %s", n.ID, iid, p.path))
				}
			}
		}
	}
	return out
}
