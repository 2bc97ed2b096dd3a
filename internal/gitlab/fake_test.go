package gitlab

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeGitLab is an in-process double of the GitLab REST API v4 endpoints
// this package uses, with GitLab's paths, pagination headers, JSON shapes
// and error bodies. It sits at the HTTP boundary: the real client-go talks
// to it.
type fakeGitLab struct {
	t     *testing.T
	srv   *httptest.Server
	token string

	mu          sync.Mutex
	projectID   int64
	projectPath string
	maxPerPage  int // caps per_page below GitLab's 100 to force paging
	user        string
	notes       map[int64][]*fakeNote // by merge request iid
	mrs         []*fakeMR
	nextID      int64
	calls       map[string]int        // "METHOD kind", e.g. "PUT note"
	queries     map[string]url.Values // last query per "METHOD kind"
	failures    []failure
	writeScope  bool // false: token only has read_api, writes get 403
	listBarrier *barrier
	now         time.Time
}

type failure struct {
	method, kind string // kind as in calls; "" matches any
	status       int
	header       http.Header
	body         string
}

type fakeNote struct {
	ID          int64     `json:"id"`
	Body        string    `json:"body"`
	Author      fakeUser  `json:"author"`
	System      bool      `json:"system"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	NoteableID  int64     `json:"noteable_id"`
	NoteableIID int64     `json:"noteable_iid"`
	Type        *string   `json:"type"`
	NType       string    `json:"noteable_type"`
	ProjectID   int64     `json:"project_id"`
}

type fakeUser struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
}

type fakeMR struct {
	ID           int64     `json:"id"`
	IID          int64     `json:"iid"`
	ProjectID    int64     `json:"project_id"`
	Title        string    `json:"title"`
	Description  string    `json:"description"`
	State        string    `json:"state"`
	SourceBranch string    `json:"source_branch"`
	TargetBranch string    `json:"target_branch"`
	Labels       []string  `json:"labels"`
	WebURL       string    `json:"web_url"`
	CreatedAt    time.Time `json:"created_at"`
}

const fakeToken = "glpat-SECRETtoken123456"

func newFake(t *testing.T) *fakeGitLab {
	f := &fakeGitLab{
		t: t, token: fakeToken, projectID: 42, projectPath: "group/project",
		maxPerPage: 100, user: "project_42_bot", notes: map[int64][]*fakeNote{},
		calls: map[string]int{}, queries: map[string]url.Values{}, writeScope: true, nextID: 1000,
		now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// addMR registers an open merge request with no notes.
func (f *fakeGitLab) addMR(iid int64, src, dst string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mrs = append(f.mrs, f.newMR(iid, src, dst, "Draft", "", nil))
	f.notes[iid] = nil
}

func (f *fakeGitLab) newMR(iid int64, src, dst, title, desc string, labels []string) *fakeMR {
	f.nextID++
	if labels == nil {
		labels = []string{}
	}
	return &fakeMR{ID: f.nextID, IID: iid, ProjectID: f.projectID, Title: title, Description: desc,
		State: "opened", SourceBranch: src, TargetBranch: dst, Labels: labels, CreatedAt: f.now,
		WebURL: f.srv.URL + "/" + f.projectPath + "/-/merge_requests/" + strconv.FormatInt(iid, 10)}
}

// addForeignNotes adds n notes by another user (and one system note).
func (f *fakeGitLab) addForeignNotes(iid int64, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range n {
		f.appendNote(iid, "looks good "+strconv.Itoa(i), "reviewer", i == 0)
	}
}

func (f *fakeGitLab) appendNote(iid int64, body, user string, system bool) *fakeNote {
	f.nextID++
	f.now = f.now.Add(time.Second)
	n := &fakeNote{ID: f.nextID, Body: body, Author: fakeUser{ID: 7, Username: user, Name: user},
		System: system, CreatedAt: f.now, UpdatedAt: f.now, NoteableID: 500 + iid, NoteableIID: iid,
		NType: "MergeRequest", ProjectID: f.projectID}
	f.notes[iid] = append(f.notes[iid], n)
	return n
}

// fail queues a failure for the next matching request.
func (f *fakeGitLab) fail(method, kind string, status int, header http.Header, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, failure{method, kind, status, header, body})
}

func (f *fakeGitLab) count(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

func (f *fakeGitLab) client(t *testing.T, slept *[]time.Duration) *Client {
	var mu sync.Mutex
	c, err := New(Options{BaseURL: f.srv.URL + "/api/v4", Token: f.token, HTTP: f.srv.Client(),
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			if slept != nil {
				*slept = append(*slept, d)
			}
			return ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// serve authenticates, applies queued failures, then routes.
func (f *fakeGitLab) serve(w http.ResponseWriter, r *http.Request) {
	seg := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/api/v4/"), "/")
	kind := routeKind(seg)
	f.mu.Lock()
	f.calls[r.Method+" "+kind]++
	f.calls["total"]++
	f.queries[r.Method+" "+kind] = r.URL.Query()
	if !f.authorized(r) {
		f.mu.Unlock()
		writeJSON(w, 401, map[string]any{"message": "401 Unauthorized"})
		return
	}
	for i, fl := range f.failures {
		if (fl.method == "" || fl.method == r.Method) && (fl.kind == "" || fl.kind == kind) {
			f.failures = append(f.failures[:i], f.failures[i+1:]...)
			f.mu.Unlock()
			for k, v := range fl.header {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(fl.status)
			_, _ = w.Write([]byte(fl.body))
			return
		}
	}
	if b := f.listBarrier; kind == "notes" && r.Method == http.MethodGet && b != nil {
		// Take the listing now, answer once the other run has taken its
		// too: both then see the same notes, as in a real race.
		rec := httptest.NewRecorder()
		f.route(rec, r, seg, kind)
		f.mu.Unlock()
		b.wait()
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		return
	}
	defer f.mu.Unlock()
	f.route(w, r, seg, kind)
}

func (f *fakeGitLab) authorized(r *http.Request) bool {
	return r.Header.Get("PRIVATE-TOKEN") == f.token || r.Header.Get("Authorization") == "Bearer "+f.token
}

// routeKind names an endpoint: project, mrs, mr, notes or note.
func routeKind(seg []string) string {
	if len(seg) < 2 || seg[0] != "projects" {
		return "unknown"
	}
	switch {
	case len(seg) == 2:
		return "project"
	case len(seg) == 3 && seg[2] == "merge_requests":
		return "mrs"
	case len(seg) == 4 && seg[2] == "merge_requests":
		return "mr"
	case len(seg) == 5 && seg[4] == "notes":
		return "notes"
	case len(seg) == 6 && seg[4] == "notes":
		return "note"
	}
	return "unknown"
}

func (f *fakeGitLab) projectMatches(escaped string) bool {
	id, err := url.PathUnescape(escaped)
	return err == nil && (id == strconv.FormatInt(f.projectID, 10) || id == f.projectPath)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// barrier releases its waiters once n have arrived; later callers pass.
type barrier struct {
	mu   sync.Mutex
	n    int
	done chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, done: make(chan struct{})} }

func (b *barrier) wait() {
	b.mu.Lock()
	b.n--
	if b.n == 0 {
		close(b.done)
	}
	b.mu.Unlock()
	<-b.done
}
