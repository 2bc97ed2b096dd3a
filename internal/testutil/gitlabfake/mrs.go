package gitlabfake

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MR is a merge request as the API returns it.
type MR struct {
	ID           int64     `json:"id"`
	IID          int64     `json:"iid"`
	ProjectID    int64     `json:"project_id"`
	Title        string    `json:"title"`
	Description  string    `json:"description"`
	State        string    `json:"state"` // opened, closed or merged
	SourceBranch string    `json:"source_branch"`
	TargetBranch string    `json:"target_branch"`
	Labels       []string  `json:"labels"`
	WebURL       string    `json:"web_url"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

func (s *Server) newMR(p *project, iid int64, src, dst, title, desc string, labels []string) *MR {
	s.nextID++
	s.now = s.now.Add(time.Second)
	if labels == nil {
		labels = []string{}
	}
	return &MR{ID: s.nextID, IID: iid, ProjectID: p.id, Title: title, Description: desc,
		State: "opened", SourceBranch: src, TargetBranch: dst, Labels: labels, CreatedAt: s.now, UpdatedAt: s.now,
		WebURL: s.srv.URL + "/" + p.path + "/-/merge_requests/" + strconv.FormatInt(iid, 10)}
}

// serveMRs lists (filters state, source_branch, target_branch) or creates
// merge requests; s.mu is held.
func (s *Server) serveMRs(w http.ResponseWriter, r *http.Request, p *project) {
	if r.Method == http.MethodPost {
		s.createMR(w, r, p)
		return
	}
	q := r.URL.Query()
	var out []*MR
	for _, m := range p.mrs {
		if v := q.Get("state"); v != "" && v != "all" && v != m.State {
			continue
		}
		if v := q.Get("source_branch"); v != "" && v != m.SourceBranch {
			continue
		}
		if v := q.Get("target_branch"); v != "" && v != m.TargetBranch {
			continue
		}
		out = append(out, m)
	}
	writePage(w, r, out, s.opt.PerPage)
}

func (s *Server) createMR(w http.ResponseWriter, r *http.Request, p *project) {
	v := params(r)
	if v["source_branch"] == "" || v["target_branch"] == "" || v["title"] == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "400 Bad request - title is missing"})
		return
	}
	// GitLab's validate_branches: one open merge request per source branch.
	for _, m := range p.mrs {
		if m.State == "opened" && m.SourceBranch == v["source_branch"] {
			writeJSON(w, http.StatusConflict, map[string]any{"message": []string{
				"Another open merge request already exists for this source branch: !" + strconv.FormatInt(m.IID, 10)}})
			return
		}
	}
	var iid int64 = 1
	for _, m := range p.mrs {
		iid = max(iid, m.IID+1)
	}
	m := s.newMR(p, iid, v["source_branch"], v["target_branch"], v["title"], v["description"], splitLabels(v["labels"]))
	p.mrs = append(p.mrs, m)
	writeJSON(w, http.StatusCreated, m)
}

func (s *Server) serveMR(w http.ResponseWriter, r *http.Request, m *MR) {
	if r.Method == http.MethodPut {
		v := params(r)
		if t, ok := v["title"]; ok {
			m.Title = t
		}
		if d, ok := v["description"]; ok {
			m.Description = d
		}
		if l, ok := v["labels"]; ok {
			m.Labels = splitLabels(l)
		}
		switch v["state_event"] {
		case "close":
			m.State = "closed"
		case "reopen":
			m.State = "opened"
		}
		s.now = s.now.Add(time.Second)
		m.UpdatedAt = s.now
	}
	writeJSON(w, http.StatusOK, m)
}

// splitLabels parses GitLab's comma-separated label list.
func splitLabels(v string) []string {
	out := []string{}
	for l := range strings.SplitSeq(v, ",") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
