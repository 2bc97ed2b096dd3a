package gitlab

import (
	"net/http"
	"strconv"
	"strings"
)

// serveMRs lists (filters source_branch, target_branch, state) or creates
// merge requests; f.mu is held.
func (f *fakeGitLab) serveMRs(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		f.createMR(w, r)
		return
	}
	q := r.URL.Query()
	var out []*fakeMR
	for _, m := range f.mrs {
		if s := q.Get("state"); s != "" && s != "all" && s != m.State {
			continue
		}
		if s := q.Get("source_branch"); s != "" && s != m.SourceBranch {
			continue
		}
		if s := q.Get("target_branch"); s != "" && s != m.TargetBranch {
			continue
		}
		out = append(out, m)
	}
	writePage(w, r, out, f.maxPerPage)
}

func (f *fakeGitLab) createMR(w http.ResponseWriter, r *http.Request) {
	p := params(r)
	if p["source_branch"] == "" || p["target_branch"] == "" || p["title"] == "" {
		writeJSON(w, 400, map[string]any{"message": "400 Bad request - title is missing"})
		return
	}
	for _, m := range f.mrs {
		if m.State == "opened" && m.SourceBranch == p["source_branch"] {
			writeJSON(w, 409, map[string]any{"message": []string{
				"Another open merge request already exists for this source branch: !" + strconv.FormatInt(m.IID, 10)}})
			return
		}
	}
	var iid int64 = 1
	for _, m := range f.mrs {
		iid = max(iid, m.IID+1)
	}
	m := f.newMR(iid, p["source_branch"], p["target_branch"], p["title"], p["description"], splitLabels(p["labels"]))
	f.mrs = append(f.mrs, m)
	writeJSON(w, 201, m)
}

func (f *fakeGitLab) serveMR(w http.ResponseWriter, r *http.Request, m *fakeMR) {
	if r.Method == http.MethodPut {
		p := params(r)
		if v, ok := p["title"]; ok {
			m.Title = v
		}
		if v, ok := p["description"]; ok {
			m.Description = v
		}
		if v, ok := p["labels"]; ok {
			m.Labels = splitLabels(v)
		}
		if p["state_event"] == "close" {
			m.State = "closed"
		}
	}
	writeJSON(w, 200, m)
}

// splitLabels parses GitLab's comma-separated label list.
func splitLabels(s string) []string {
	out := []string{}
	for l := range strings.SplitSeq(s, ",") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
