package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/chartpack"
)

// packageChart packs examples/charts/<name> at version, the bytes the
// demo's chart repository serves.
func packageChart(t testing.TB, name, version string) []byte {
	t.Helper()
	data, err := chartpack.Package(os.DirFS(filepath.Join("..", "..", "examples", "charts", name)), name, version)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// chartFiles packages every version listed in each example chart's
// versions file: "<chart>-<version>.tgz" -> archive.
func chartFiles(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range []string{"edge-gateway", "ledger-api", "ledger-worker"} {
		vs, err := os.ReadFile(filepath.Join("..", "..", "examples", "charts", name, "versions"))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range strings.Fields(string(vs)) {
			out[name+"-"+v+".tgz"] = packageChart(t, name, v)
		}
	}
	return out
}

// chartRepo is a real HTTP chart repository on loopback: index.yaml with
// sha256 digests and relative URLs, and the archives.
type chartRepo struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int // request path -> count
	user string         // basic auth required when set
	pass string
}

// requireAuth makes the repository answer 401 without these credentials.
func (r *chartRepo) requireAuth(user, pass string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.user, r.pass = user, pass
}

func newChartRepo(t *testing.T, files map[string][]byte) *chartRepo {
	t.Helper()
	var idx strings.Builder
	idx.WriteString("apiVersion: v1\nentries:\n")
	last := ""
	for _, file := range slices.Sorted(maps.Keys(files)) {
		base := strings.TrimSuffix(file, ".tgz")
		i := strings.LastIndex(base, "-")
		chart, version := base[:i], base[i+1:]
		if chart != last {
			fmt.Fprintf(&idx, "  %s:\n", chart)
			last = chart
		}
		sum := sha256.Sum256(files[file])
		fmt.Fprintf(&idx, "  - apiVersion: v2\n    name: %s\n    version: %s\n    digest: %s\n    urls:\n    - %s\n",
			chart, version, hex.EncodeToString(sum[:]), file)
	}
	r := &chartRepo{hits: map[string]int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.hits[req.URL.Path]++
		user, pass := r.user, r.pass
		r.mu.Unlock()
		if u, p, _ := req.BasicAuth(); user != "" && (u != user || p != pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if req.URL.Path == "/index.yaml" {
			w.Write([]byte(idx.String()))
			return
		}
		body, ok := files[strings.TrimPrefix(req.URL.Path, "/")]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *chartRepo) requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, v := range r.hits {
		n += v
	}
	return n
}

// fleet is a real git repository made from examples/fleet whose chart
// repoURLs point at a loopback chart repository.
type fleet struct {
	Dir    string
	Charts *chartRepo
}

const exampleChartURL = "http://127.0.0.1:8879"

func newFleet(t *testing.T) *fleet {
	t.Helper()
	f := &fleet{Dir: filepath.Join(t.TempDir(), "repo"), Charts: newChartRepo(t, chartFiles(t))}
	if err := os.CopyFS(f.Dir, os.DirFS(filepath.Join("..", "..", "examples", "fleet"))); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{"qa", "preprod", "prod"} {
		for _, file := range []string{"app-gateway.yaml", "appset-nodes.yaml"} {
			f.edit(t, path.Join("argocd", env, file), exampleChartURL, f.Charts.URL)
		}
	}
	// The example's AppProjects permit what the example deploys; the tests
	// add apps of other sources and namespaces, and are not about the
	// projects: the fleet goes without them (withProjects puts them back,
	// syncready_test.go writes its own).
	f.edit(t, ".promote.yaml", "appProjects: [argocd/projects.yaml]", "")
	if err := os.Remove(filepath.Join(f.Dir, "argocd", "projects.yaml")); err != nil {
		t.Fatal(err)
	}
	gitRun(t, f.Dir, "init", "-q", "-b", "main")
	gitRun(t, f.Dir, "config", "user.name", "Release Manager")
	gitRun(t, f.Dir, "config", "user.email", "rm@example.com")
	f.commit(t, "base: the example fleet")
	return f
}

// withProjects puts the example's AppProjects back, permitting the
// loopback chart repository the fleet reads.
func (f *fleet) withProjects(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "fleet", "argocd", "projects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, "argocd/projects.yaml", strings.ReplaceAll(string(data), exampleChartURL, f.Charts.URL))
	f.edit(t, ".promote.yaml", "components:", "appProjects: [argocd/projects.yaml]\ncomponents:")
}

// edit replaces every old with new in a work tree file, failing when old
// is absent so a drifting example cannot silently void a test.
func (f *fleet) edit(t *testing.T, name, old, new string) {
	t.Helper()
	p := filepath.Join(f.Dir, filepath.FromSlash(name))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	f.write(t, name, strings.ReplaceAll(string(data), old, new))
}

func (f *fleet) write(t *testing.T, name, content string) {
	t.Helper()
	p := filepath.Join(f.Dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fleet) read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.Dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func (f *fleet) remove(t *testing.T, name string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(f.Dir, filepath.FromSlash(name))); err != nil {
		t.Fatal(err)
	}
}

// commit records the work tree and returns the new commit's SHA.
func (f *fleet) commit(t *testing.T, msg string) string {
	t.Helper()
	gitRun(t, f.Dir, "add", "-A")
	gitRun(t, f.Dir, "commit", "-q", "--allow-empty", "-m", msg)
	return gitRun(t, f.Dir, "rev-parse", "HEAD")
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_DATE=2026-11-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-11-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// result of one in-process run of the command.
type result struct {
	code        int
	out, errOut string
}

// run calls the command in process against the fleet, with a fresh chart
// cache unless the caller picks --cache-dir or --charts-dir.
func (f *fleet) run(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	ios := &ioStreams{Out: &out, ErrOut: &errOut}
	args = append([]string{"--repo", f.Dir}, args...)
	if !slices.Contains(args, "--cache-dir") && !slices.Contains(args, "--charts-dir") {
		args = append(args, "--cache-dir", t.TempDir())
	}
	getenv := func(k string) string { return env[k] }
	code := exitCode(ios, runArgs(context.Background(), args, ios, getenv))
	return result{code, out.String(), errOut.String()}
}
