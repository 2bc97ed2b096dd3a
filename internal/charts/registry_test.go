package charts

import (
	"bytes"
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

func (tr *testRegistry) uploadBlob(t *testing.T, repo string, body []byte) string {
	t.Helper()
	digest := "sha256:" + sha256Hex(body)
	u := fmt.Sprintf("%s/v2/%s/blobs/uploads/?digest=%s", tr.backend.URL, repo, digest)
	resp, err := http.Post(u, "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload blob to %s: %s", repo, resp.Status)
	}
	return digest
}

// pushChart stores tgz the way `helm push` does: a config blob, a chart
// layer and an OCI image manifest tagged with the version ("+" as "_").
func (tr *testRegistry) pushChart(t *testing.T, repo, version, layerType string, tgz []byte) {
	t.Helper()
	config := fmt.Appendf(nil, `{"apiVersion":"v2","name":%q,"version":%q}`, repo, version)
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     mediaOCIManifest,
		"config":        map[string]any{"mediaType": mediaHelmConfig, "digest": tr.uploadBlob(t, repo, config), "size": len(config)},
		"layers":        []any{map[string]any{"mediaType": layerType, "digest": tr.uploadBlob(t, repo, tgz), "size": len(tgz)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tr.putManifest(t, repo, strings.ReplaceAll(version, "+", "_"), manifest)
}

func (tr *testRegistry) putManifest(t *testing.T, repo, tag string, manifest []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/v2/%s/manifests/%s", tr.backend.URL, repo, tag), bytes.NewReader(manifest))
	req.Header.Set("Content-Type", mediaOCIManifest)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("put manifest %s:%s: %s", repo, tag, resp.Status)
	}
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
