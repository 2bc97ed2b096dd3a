package charts

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

// makeChart packages a small but valid chart the way `helm package` lays
// it out: <name>/Chart.yaml, values.yaml and templates/ in a gzipped tar.
func makeChart(t testing.TB, name, version string) []byte {
	t.Helper()
	files := []struct{ name, body string }{
		{"Chart.yaml", fmt.Sprintf("apiVersion: v2\nname: %s\nversion: %s\nappVersion: \"1.0\"\ntype: application\n", name, version)},
		{"values.yaml", "replicas: 1\n"},
		{"templates/configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  replicas: {{ .Values.replicas | quote }}\n"},
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		hdr := &tar.Header{Name: name + "/" + f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// chartMeta reads name and version back out of a packaged chart, proving
// the bytes are the archive and not, say, an error page.
func chartMeta(t testing.TB, tgz []byte) string {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatalf("not a gzip archive: %v", err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err != nil {
			t.Fatalf("no Chart.yaml in archive: %v", err)
		}
		if !strings.HasSuffix(hdr.Name, "/Chart.yaml") {
			continue
		}
		var meta struct{ Name, Version string }
		data, _ := io.ReadAll(tr)
		if err := yaml.Unmarshal(data, &meta); err != nil {
			t.Fatal(err)
		}
		return meta.Name + "@" + meta.Version
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// counter counts requests per path on a test server.
type counter struct {
	mu   sync.Mutex
	hits map[string]int
	auth map[string]bool // path -> an Authorization header arrived
}

func newCounter() *counter { return &counter{hits: map[string]int{}, auth: map[string]bool{}} }

func (c *counter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.hits[r.URL.Path]++
		if r.Header.Get("Authorization") != "" {
			c.auth[r.URL.Path] = true
		}
		c.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (c *counter) get(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits[path]
}

func (c *counter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.hits {
		n += v
	}
	return n
}

func (c *counter) sawAuth(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.auth[path]
}

// files serves a fixed set of paths, optionally behind basic auth.
func files(m map[string][]byte, user, pass string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user != "" {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		body, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	})
}

// noNetwork fails the test on any request: for modes that must stay offline.
func noNetwork(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.Error(w, "offline", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// up is user and password credentials.
func up(user, pass string) Auth { return Auth{Username: user, Password: pass} }

// pairFor is HELM_REPO_USERNAME/HELM_REPO_PASSWORD scoped by HELM_REPO_URL
// to urls; nil when a is empty.
func pairFor(a Auth, urls ...string) *Credentials {
	if !a.set() {
		return nil
	}
	a.Source = EnvUsername + "/" + EnvPassword
	return &Credentials{Pair: a, PairURLs: urls}
}
