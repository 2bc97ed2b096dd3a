package gitlabfake_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// The double is mostly exercised through internal/gitlab's tests with the
// real client; these check the parts a client cannot see: raw headers,
// queued failures by path and the leak report.

func get(t *testing.T, s *gitlabfake.Server, token, path string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL()+path, nil)
	req.Header.Set("PRIVATE-TOKEN", token)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func TestPaginationHeaders(t *testing.T) {
	s := gitlabfake.New(t, gitlabfake.Options{PerPage: 2})
	s.AddProject(42, "group/project")
	s.AddMR("group/project", 7, "feature", "main")
	for range 5 {
		s.AddNote("42", 7, "reviewer", "hi", false)
	}
	resp, _ := get(t, s, s.Token(), "/projects/group%2Fproject/merge_requests/7/notes?page=2&per_page=100")
	got := map[string]string{}
	for _, h := range []string{"X-Page", "X-Per-Page", "X-Total", "X-Total-Pages", "X-Next-Page", "X-Prev-Page"} {
		got[h] = resp.Header.Get(h)
	}
	want := map[string]string{"X-Page": "2", "X-Per-Page": "2", "X-Total": "5", "X-Total-Pages": "3",
		"X-Next-Page": "3", "X-Prev-Page": "1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("headers (-want +got):\n%s", d)
	}
	if link := resp.Header.Get("Link"); !strings.Contains(link, `page=3&per_page=2>; rel="next"`) {
		t.Errorf("Link %q", link)
	}
}

func TestFailuresAndAuth(t *testing.T) {
	s := gitlabfake.New(t, gitlabfake.Options{Token: "glpat-x1"})
	s.AddProject(42, "group/project")
	s.AddMR("42", 7, "feature", "main")
	s.FailNext(http.MethodGet, "/projects/group/project/merge_requests/7", 429, http.Header{"Retry-After": {"1"}})
	cases := []struct {
		name, token, path string
		status            int
		retryAfter        string
	}{
		{"bad token consumes no failure", "glpat-nope", "/projects/42/merge_requests/7", 401, ""},
		{"queued 429 by path prefix", "glpat-x1", "/projects/group%2Fproject/merge_requests/7/notes", 429, "1"},
		{"then served", "glpat-x1", "/projects/42/merge_requests/7", 200, ""},
		{"unknown project", "glpat-x1", "/projects/other%2Fproject/merge_requests/7", 404, ""},
		{"unknown merge request", "glpat-x1", "/projects/42/merge_requests/8", 404, ""},
	}
	for _, tc := range cases {
		resp, body := get(t, s, tc.token, tc.path)
		if resp.StatusCode != tc.status || resp.Header.Get("Retry-After") != tc.retryAfter {
			t.Errorf("%s: %d %q %s", tc.name, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	if n := s.Calls("GET mr"); n != 4 {
		t.Errorf("GET mr counted %d times, want 4", n)
	}
}

func TestLeaks(t *testing.T) {
	s := gitlabfake.New(t, gitlabfake.Options{})
	s.AddProject(42, "group/project")
	s.AddMR("42", 7, "feature", "main")
	get(t, s, s.Token(), "/projects/42/merge_requests/7")
	if l := s.Leaks(s.Token()); len(l) != 0 {
		t.Fatalf("token in its own header reported as a leak: %v", l)
	}
	get(t, s, s.Token(), "/projects/42/merge_requests/7?private_token="+s.Token())
	s.AddNote("42", 7, "reviewer", "oops "+s.Token(), false)
	if l := s.Leaks(s.Token()); len(l) != 2 {
		t.Fatalf("leaks %v, want the query and the note", l)
	}
}

func TestCommitStatusEndpoints(t *testing.T) {
	s := gitlabfake.New(t, gitlabfake.Options{})
	s.AddProject(42, "group/project")
	sha := "0123456789012345678901234567890123456789"
	post := func(query string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"/projects/42/statuses/"+sha+"?"+query, nil)
		req.Header.Set("PRIVATE-TOKEN", s.Token())
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("state=success&name=argocd/a"); code != 404 || !strings.Contains(body, "404 Commit Not Found") {
		t.Errorf("unknown commit: %d %s", code, body)
	}
	s.AddCommit("42", sha)
	for _, c := range []struct {
		query, want string
		code        int
	}{
		{"name=argocd/a", `"error":"state is missing`, 400},
		{"state=deployed&name=argocd/a", `"error":"state does not have a valid value"`, 400},
		{"state=running&name=argocd/a", `"status":"running"`, 201},
		{"state=running&name=argocd/a", `Cannot transition status via :run from :running`, 400},
		{"state=success&name=argocd/a&description=Synced+Healthy", `"status":"success"`, 201},
		{"state=success&context=argocd/b", `"name":"argocd/b"`, 201},
		{"state=success", `"name":"default"`, 201},
		{"state=success&name=x&description=" + strings.Repeat("d", 256), `"description":["is too long (maximum is 255 characters)"]`, 400},
	} {
		if code, body := post(c.query); code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("POST ?%s: %d %s; want %d with %s", c.query, code, body, c.code, c.want)
		}
	}
	resp, body := get(t, s, s.Token(), "/projects/42/repository/commits/"+sha+"/statuses?sort=desc&per_page=2")
	if resp.StatusCode != 200 || resp.Header.Get("X-Total") != "3" || !strings.HasPrefix(body, `[{"id":`) ||
		strings.Index(body, `"name":"default"`) > strings.Index(body, `"name":"argocd/b"`) {
		t.Errorf("list: %d total=%s %s", resp.StatusCode, resp.Header.Get("X-Total"), body)
	}
	_, body = get(t, s, s.Token(), "/projects/42/repository/commits/"+sha+"/statuses?name=argocd/a&all=true")
	if strings.Count(body, `"name":"argocd/a"`) != 1 {
		t.Errorf("running then success is one status moved along, not two: %s", body)
	}
	if resp, body := get(t, s, s.Token(), "/projects/42/repository/commits/"+sha+"/statuses?order_by=name"); resp.StatusCode != 400 ||
		!strings.Contains(body, "order_by does not have a valid value") {
		t.Errorf("bad order_by: %d %s", resp.StatusCode, body)
	}
	s.SetReadOnly(true)
	if code, body := post("state=failed&name=argocd/a"); code != 403 || !strings.Contains(body, "insufficient_scope") {
		t.Errorf("read-only token: %d %s", code, body)
	}
}
