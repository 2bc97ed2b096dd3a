package charts

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/gitops-promote/gitops-promote/internal/testutil/chartsrv"
)

// testRegistry is go-containerregistry's in-memory OCI registry. Charts are
// pushed straight to it over the registry HTTP API; the Client under test
// talks to the same registry through front, which may add pagination or
// authentication the way real registries do.
type testRegistry struct {
	backend *httptest.Server
	front   *httptest.Server
	hits    *counter
}

func newTestRegistry(t *testing.T, front func(http.Handler) http.Handler) *testRegistry {
	return newTestRegistryWith(t, front, func(s *httptest.Server) { s.Start(); t.Cleanup(s.Close) })
}

// newTestRegistryWith starts the front with start (e.g. over TLS).
func newTestRegistryWith(t *testing.T, front func(http.Handler) http.Handler, start func(*httptest.Server)) *testRegistry {
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	tr := &testRegistry{hits: newCounter()}
	tr.backend = httptest.NewServer(reg)
	t.Cleanup(tr.backend.Close)
	if front == nil {
		front = func(h http.Handler) http.Handler { return h }
	}
	tr.front = httptest.NewUnstartedServer(tr.hits.wrap(front(reg)))
	start(tr.front)
	return tr
}

// host is the registry as Argo CD writes it: host:port without a scheme.
func (tr *testRegistry) host() string {
	u, _ := url.Parse(tr.front.URL)
	return u.Host
}

// pushChart stores tgz the way `helm push` does, with a layer of layerType.
func (tr *testRegistry) pushChart(t *testing.T, repo, version, layerType string, tgz []byte) {
	chartsrv.Push(t, tr.backend.URL, repo, version, layerType, tgz)
}

// paginate serves tag lists n at a time with Link rel="next" headers, as
// Docker Hub, GHCR and Harbor do; the in-memory registry never paginates.
func paginate(n int) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/tags/list") {
				h.ServeHTTP(w, r)
				return
			}
			q := r.URL.Query()
			inner := r.Clone(r.Context())
			inner.URL.RawQuery = ""
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, inner)
			var body struct {
				Name string   `json:"name"`
				Tags []string `json:"tags"`
			}
			if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &body) != nil {
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
				return
			}
			tags := body.Tags
			if last := q.Get("last"); last != "" {
				i, _ := slices.BinarySearch(tags, last)
				tags = tags[min(i+1, len(tags)):]
			}
			size := n
			if s, err := strconv.Atoi(q.Get("n")); err == nil {
				size = s
			}
			if len(tags) > size {
				tags = tags[:size]
				next := fmt.Sprintf("%s?n=%d&last=%s", r.URL.Path, size, url.QueryEscape(tags[size-1]))
				w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, next))
			}
			body.Tags = tags
			json.NewEncoder(w).Encode(body)
		})
	}
}
