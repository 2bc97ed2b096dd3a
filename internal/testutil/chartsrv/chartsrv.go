// Package chartsrv serves Helm charts on loopback for tests of the real
// binaries: a classic chart repository (index.yaml and archives) and an
// OCI registry (go-containerregistry's, charts pushed as `helm push`
// does), each over plain HTTP or over TLS with a private CA, open or
// behind credentials (basic auth for the repository, the distribution
// token flow for the registry), and each recording every credential it
// receives, so that a test can tell which host got what.
package chartsrv

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/gitops-promote/gitops-promote/internal/testutil/chartpack"
	"github.com/gitops-promote/gitops-promote/internal/testutil/tlsca"
)

// Options shape a server.
type Options struct {
	CA         *tlsca.CA // serve TLS with a certificate of CA; nil: plain HTTP
	User, Pass string    // credentials required; "" for an open server
	// Public makes an open registry ask for a token all the same, as
	// Docker Hub and GHCR do for public repositories: its token service
	// hands one to anyone. A client then answers its challenge, which
	// shows whether it sends another registry's credentials along.
	Public bool
}

// recorder notes every Authorization header, URL userinfo and request
// body (a token form) a server gets.
type recorder struct {
	mu    sync.Mutex
	reqs  int
	creds []string
}

func (r *recorder) note(req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs++
	if a := req.Header.Get("Authorization"); a != "" {
		r.creds = append(r.creds, a)
	}
	if req.URL.User != nil {
		r.creds = append(r.creds, req.URL.User.String())
	}
	// a token request's form (an OAuth2 refresh token) travels in the body
	if req.Body != nil {
		if body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20)); len(body) > 0 {
			r.creds = append(r.creds, "body: "+string(body))
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
	}
}

// Seen returns how many requests arrived and every credential among them
// (Authorization headers, URL userinfo, token form bodies).
func (r *recorder) Seen() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reqs, append([]string(nil), r.creds...)
}

func start(t testing.TB, h http.Handler, o Options) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	if o.CA != nil {
		o.CA.StartTLS(t, srv, false)
		return srv
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// Examples packages every version (its `versions` file) of every chart
// under dir, as chartpack does: name -> version -> archive.
func Examples(t testing.TB, dir string) map[string]map[string][]byte {
	t.Helper()
	out := map[string]map[string][]byte{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		vs, err := os.ReadFile(filepath.Join(dir, e.Name(), "versions"))
		if err != nil {
			continue
		}
		out[e.Name()] = map[string][]byte{}
		for _, v := range strings.Fields(string(vs)) {
			tgz, err := chartpack.Package(os.DirFS(filepath.Join(dir, e.Name())), e.Name(), v)
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()][v] = tgz
		}
	}
	return out
}

// Repo is a classic chart repository.
type Repo struct {
	recorder
	URL   string
	files map[string][]byte
}

// NewRepo serves charts (name -> version -> archive) at URL, with an
// index.yaml whose download URLs are relative.
func NewRepo(t testing.TB, charts map[string]map[string][]byte, o Options) *Repo {
	t.Helper()
	r := &Repo{files: map[string][]byte{}}
	var idx strings.Builder
	idx.WriteString("apiVersion: v1\nentries:\n")
	for _, name := range sortedKeys(charts) {
		fmt.Fprintf(&idx, "  %s:\n", name)
		for _, v := range sortedKeys(charts[name]) {
			tgz := charts[name][v]
			sum := sha256.Sum256(tgz)
			file := fmt.Sprintf("%s-%s.tgz", name, v)
			r.files["/"+file] = tgz
			fmt.Fprintf(&idx, "  - apiVersion: v2\n    name: %s\n    version: %s\n    digest: %s\n    urls: [%s]\n", name, v, hex.EncodeToString(sum[:]), file)
		}
	}
	r.files["/index.yaml"] = []byte(idx.String())
	srv := start(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.note(req)
		if o.User != "" {
			if u, p, ok := req.BasicAuth(); !ok || u != o.User || p != o.Pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		body, ok := r.files[req.URL.Path]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Write(body)
	}), o)
	r.URL = srv.URL
	return r
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Registry is an OCI registry holding charts under <Host>/charts/<name>.
type Registry struct {
	recorder
	Host    string // host:port, as Argo CD writes an OCI repository
	backend *httptest.Server
	token   string
}

// NewRegistry serves charts at Host/charts/<name>:<version>. With
// credentials (or Public), it answers the distribution token flow as Docker Hub,
// GHCR or Harbor do: a 401 with a Bearer challenge whose realm is its own
// /token, which hands a token out for the basic credentials.
func NewRegistry(t testing.TB, charts map[string]map[string][]byte, o Options) *Registry {
	t.Helper()
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	r := &Registry{token: "registry-issued-token"}
	r.backend = httptest.NewServer(reg)
	t.Cleanup(r.backend.Close)
	srv := start(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.note(req)
		if o.User == "" && !o.Public {
			reg.ServeHTTP(w, req)
			return
		}
		if req.URL.Path == "/token" {
			if u, p, ok := req.BasicAuth(); o.User != "" && (!ok || u != o.User || p != o.Pass) {
				http.Error(w, `{"details":"incorrect username or password"}`, http.StatusUnauthorized)
				return
			}
			json.NewEncoder(w).Encode(map[string]string{"token": r.token})
			return
		}
		if req.Header.Get("Authorization") != "Bearer "+r.token {
			scheme := "http"
			if req.TLS != nil {
				scheme = "https"
			}
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="%s://%s/token",service="chartsrv"`, scheme, req.Host))
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
			return
		}
		reg.ServeHTTP(w, req)
	}), o)
	u, _ := url.Parse(srv.URL)
	r.Host = u.Host
	for _, name := range sortedKeys(charts) {
		for _, v := range sortedKeys(charts[name]) {
			r.push(t, "charts/"+name, v, charts[name][v])
		}
	}
	return r
}

// push stores a chart in r as `helm push` does.
func (r *Registry) push(t testing.TB, repo, version string, tgz []byte) {
	Push(t, r.backend.URL, repo, version, ChartLayer, tgz)
}

// ChartLayer is the media type `helm push` gives a chart's layer.
const ChartLayer = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"

// Push stores tgz in the registry at registryURL (http://host:port, no
// authentication) as `helm push` does: a config blob, a layer of
// layerType and an OCI image manifest tagged with the version ("+"
// written "_").
func Push(t testing.TB, registryURL, repo, version, layerType string, tgz []byte) {
	t.Helper()
	config := fmt.Appendf(nil, `{"apiVersion":"v2","name":%q,"version":%q}`, repo, version)
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        map[string]any{"mediaType": "application/vnd.cncf.helm.config.v1+json", "digest": blob(t, registryURL, repo, config), "size": len(config)},
		"layers":        []any{map[string]any{"mediaType": layerType, "digest": blob(t, registryURL, repo, tgz), "size": len(tgz)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	PutManifest(t, registryURL, repo, strings.ReplaceAll(version, "+", "_"), manifest)
}

// PutManifest stores an OCI image manifest under tag.
func PutManifest(t testing.TB, registryURL, repo, tag string, manifest []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/v2/%s/manifests/%s", registryURL, repo, tag), bytes.NewReader(manifest))
	req.Header.Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("put manifest %s:%s: %s", repo, tag, resp.Status)
	}
}

func blob(t testing.TB, registryURL, repo string, body []byte) string {
	t.Helper()
	sum := sha256.Sum256(body)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	resp, err := http.Post(fmt.Sprintf("%s/v2/%s/blobs/uploads/?digest=%s", registryURL, repo, digest), "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload blob to %s: %s", repo, resp.Status)
	}
	return digest
}
