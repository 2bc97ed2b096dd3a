package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fleet is a real git repository made from examples/fleet, with a bare
// remote over file:// and a chart repository index over loopback HTTP.
type fleet struct {
	Dir, Remote string
	Charts      *httptest.Server
	Requests    *int
}

func newFleet(t *testing.T, edits ...func(dir string)) *fleet {
	t.Helper()
	root := t.TempDir()
	f := &fleet{Dir: filepath.Join(root, "repo"), Remote: filepath.Join(root, "remote.git"), Requests: new(int)}
	f.Charts = chartServer(t, "../../examples/charts", f.Requests)
	if err := os.CopyFS(f.Dir, os.DirFS("../../examples/fleet")); err != nil {
		t.Fatal(err)
	}
	manifests, _ := filepath.Glob(filepath.Join(f.Dir, "argocd", "*", "*.yaml"))
	for _, m := range manifests {
		data, _ := os.ReadFile(m)
		data = bytes.ReplaceAll(data, []byte("http://127.0.0.1:8879"), []byte(f.Charts.URL))
		if err := os.WriteFile(m, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, edit := range edits {
		edit(f.Dir)
	}
	gitRun(t, f.Dir, "init", "-q", "-b", "main")
	gitRun(t, f.Dir, "config", "user.name", "Release Manager")
	gitRun(t, f.Dir, "config", "user.email", "rm@example.com")
	gitRun(t, f.Dir, "add", "-A")
	gitRun(t, f.Dir, "commit", "-q", "-m", "initial layout")
	gitRun(t, root, "init", "-q", "--bare", "-b", "main", f.Remote)
	gitRun(t, f.Dir, "remote", "add", "origin", "file://"+f.Remote)
	gitRun(t, f.Dir, "push", "-q", "origin", "main")
	return f
}

// chartServer serves a real index.yaml listing every version of every
// example chart (the chart check only reads the index).
func chartServer(t *testing.T, src string, requests *int) *httptest.Server {
	t.Helper()
	var idx strings.Builder
	idx.WriteString("apiVersion: v1\nentries:\n")
	dirs, _ := os.ReadDir(src)
	for _, d := range dirs {
		vs, err := os.ReadFile(filepath.Join(src, d.Name(), "versions"))
		if err != nil {
			continue
		}
		fmt.Fprintf(&idx, "  %s:\n", d.Name())
		for _, v := range strings.Fields(string(vs)) {
			fmt.Fprintf(&idx, "  - apiVersion: v2\n    name: %s\n    version: %s\n    urls:\n    - %s-%s.tgz\n", d.Name(), v, d.Name(), v)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*requests++
		if r.URL.Path != "/index.yaml" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(idx.String()))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_DATE=2026-11-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-11-01T00:00:00Z")
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

func (f *fleet) run(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	ios := &ioStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	getenv := func(k string) string { return env[k] }
	args = append(args, "--repo", f.Dir)
	code := exitCode(ios, runArgs(context.Background(), args, ios, getenv))
	return result{code, out.String(), errOut.String()}
}

// snapshot captures what must not change when a command is refused.
type snapshot struct{ head, status, remote string }

func (f *fleet) snapshot(t *testing.T) snapshot {
	return snapshot{
		head:   gitRun(t, f.Dir, "rev-parse", "HEAD"),
		status: gitRun(t, f.Dir, "status", "--porcelain"),
		remote: gitRun(t, f.Remote, "rev-parse", "main"),
	}
}

// write replaces a file in the work tree and commits it.
func (f *fleet) commitFile(t *testing.T, path, content, msg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.Dir, path), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, f.Dir, "add", path)
	gitRun(t, f.Dir, "commit", "-q", "-m", msg)
}

func (f *fleet) read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.Dir, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
