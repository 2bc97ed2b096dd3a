package gitlabfake

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
)

// Request is one logged request, as it arrived.
type Request struct {
	Method string
	Path   string // decoded, without the query
	Query  string // raw query
	Header http.Header
	Body   string
	Status int // what the server answered
}

type failure struct {
	method, route string
	status        int
	header        http.Header
	body          string
}

// FailNext answers the next request matching method ("" for any) and
// route with status, header and GitLab's body for that status, instead of
// serving it. route is a route name (project, mrs, mr, notes, note) or,
// starting with "/", a prefix of the decoded path after /api/v4, e.g.
// "/projects/group/project/merge_requests/7/notes". Failures are used in
// the order queued.
func (s *Server) FailNext(method, route string, status int, header http.Header) {
	s.FailNextBody(method, route, status, header, defaultBody(status))
}

// FailNextBody is FailNext with a chosen body.
func (s *Server) FailNextBody(method, route string, status int, header http.Header, body string) {
	s.locked(func() {
		s.failures = append(s.failures, failure{method, route, status, header.Clone(), body})
	})
}

// defaultBody is what GitLab answers for each status.
func defaultBody(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return `{"message":"429 Too Many Requests"}`
	case http.StatusUnauthorized:
		return `{"message":"401 Unauthorized"}`
	case http.StatusForbidden:
		return `{"message":"403 Forbidden"}`
	case http.StatusNotFound:
		return `{"message":"404 Not found"}`
	case http.StatusConflict:
		return `{"message":["Another open merge request already exists for this source branch"]}`
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return "<html><body><h1>" + http.StatusText(status) + "</h1></body></html>"
	}
	b, _ := json.Marshal(map[string]string{"message": http.StatusText(status)})
	return string(b)
}

// serve logs, authenticates, applies queued failures, then routes.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	seg := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/api/v4/"), "/")
	route := routeOf(r.URL.EscapedPath(), seg)

	s.mu.Lock()
	s.calls[r.Method+" "+route]++
	s.calls["total"]++
	s.queries[r.Method+" "+route] = r.URL.Query()
	i := len(s.log)
	s.log = append(s.log, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: string(body)})
	var wait *barrier
	switch fl, ok := s.takeFailure(r, route); {
	case !s.authorized(r):
		writeJSON(rec, http.StatusUnauthorized, map[string]any{"message": "401 Unauthorized"})
	case ok:
		maps.Copy(rec.Header(), fl.header)
		rec.Header().Set("Content-Type", "application/json")
		rec.WriteHeader(fl.status)
		rec.WriteString(fl.body)
	default:
		s.route(rec, r, seg, route)
		if route == "notes" && r.Method == http.MethodGet && s.listBarrier != nil {
			wait = s.listBarrier
		}
	}
	s.log[i].Status = rec.Code
	s.mu.Unlock()

	// A synced listing is taken above and answered once the others have
	// taken theirs.
	if wait != nil {
		wait.wait()
	}
	maps.Copy(w.Header(), rec.Header())
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// takeFailure pops the first queued failure matching r; s.mu is held.
// An unauthorized request consumes none.
func (s *Server) takeFailure(r *http.Request, route string) (failure, bool) {
	if !s.authorized(r) {
		return failure{}, false
	}
	rel := strings.TrimPrefix(r.URL.Path, "/api/v4")
	for i, fl := range s.failures {
		if fl.method != "" && fl.method != r.Method {
			continue
		}
		if fl.route == "" || fl.route == route || (strings.HasPrefix(fl.route, "/") && strings.HasPrefix(rel, fl.route)) {
			s.failures = append(s.failures[:i], s.failures[i+1:]...)
			return fl, true
		}
	}
	return failure{}, false
}

func (s *Server) authorized(r *http.Request) bool {
	return r.Header.Get("PRIVATE-TOKEN") == s.opt.Token || r.Header.Get("Authorization") == "Bearer "+s.opt.Token
}

// routeOf names an endpoint: project, mrs, mr, notes, note, statuses
// (a commit's list), status (POST one) or unknown.
func routeOf(escapedPath string, seg []string) string {
	if !strings.HasPrefix(escapedPath, "/api/v4/") || len(seg) < 2 || seg[0] != "projects" {
		return "unknown"
	}
	switch {
	case len(seg) == 2:
		return "project"
	case len(seg) == 3 && seg[2] == "merge_requests":
		return "mrs"
	case len(seg) == 4 && seg[2] == "merge_requests":
		return "mr"
	case len(seg) == 5 && seg[2] == "merge_requests" && seg[4] == "notes":
		return "notes"
	case len(seg) == 6 && seg[2] == "merge_requests" && seg[4] == "notes":
		return "note"
	case len(seg) == 6 && seg[2] == "repository" && seg[3] == "commits" && seg[5] == "statuses":
		return "statuses"
	case len(seg) == 4 && seg[2] == "statuses":
		return "status"
	}
	return "unknown"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// params reads a JSON body (what client-go sends) or a form.
func params(r *http.Request) map[string]string {
	out := map[string]string{}
	data, _ := io.ReadAll(r.Body)
	var raw map[string]any
	if json.Unmarshal(data, &raw) == nil {
		for k, v := range raw {
			if v != nil {
				out[k] = jsonString(v)
			}
		}
		return out
	}
	vals, _ := url.ParseQuery(string(data))
	for k := range vals {
		out[k] = vals.Get(k)
	}
	return out
}

// jsonString renders a decoded JSON value as GitLab would read the
// parameter: strings as they are, lists joined by commas.
func jsonString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = jsonString(e)
		}
		return strings.Join(parts, ",")
	}
	b, _ := json.Marshal(v)
	return string(b)
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
