package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// mrFleet is a fleet whose bare remote refuses non-fast-forward pushes, as
// a protected GitLab branch does, plus a GitLab double with its project.
type mrFleet struct {
	*fleet
	gl  *gitlabfake.Server
	env map[string]string
}

const mrProject = "group/project"

func newMRFleet(t *testing.T) *mrFleet {
	t.Helper()
	f := newFleet(t)
	gitRun(t, f.Remote, "config", "receive.denyNonFastForwards", "true")
	gl := gitlabfake.New(t, gitlabfake.Options{})
	gl.AddProject(42, mrProject)
	return &mrFleet{fleet: f, gl: gl, env: map[string]string{
		"CI_API_V4_URL": gl.URL(), "CI_PROJECT_ID": mrProject, "GITLAB_TOKEN": gl.Token(),
	}}
}

// runOK runs the command and fails the test unless it exits 0; every run
// also checks that the token went nowhere but the GitLab auth header.
func (m *mrFleet) runOK(t *testing.T, args ...string) result {
	t.Helper()
	r := m.run(t, m.env, args...)
	if r.code != 0 {
		t.Fatalf("promote %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.out, r.errOut)
	}
	m.noToken(t, r)
	return r
}

func (m *mrFleet) noToken(t *testing.T, r result) {
	t.Helper()
	tok := m.gl.Token()
	if strings.Contains(r.out+r.errOut, tok) {
		t.Errorf("token printed:\nstdout:\n%s\nstderr:\n%s", r.out, r.errOut)
	}
	if leaks := m.gl.Leaks(tok); len(leaks) > 0 {
		t.Errorf("token sent outside the auth header or stored: %v", leaks)
	}
	if log := gitRun(t, m.Remote, "log", "--all", "--format=%H %an %ae%n%B"); strings.Contains(log, tok) {
		t.Errorf("token in a pushed commit:\n%s", log)
	}
}

// remoteRef is a ref's commit in the bare remote, "" when it is absent.
func (m *mrFleet) remoteRef(t *testing.T, ref string) string {
	t.Helper()
	out := gitRun(t, m.Remote, "for-each-ref", "--format=%(objectname)", "refs/heads/"+ref)
	return strings.TrimSpace(out)
}

// landOnMain pushes an unrelated commit to the remote main from another
// clone, as a colleague merging something meanwhile would.
func (m *mrFleet) landOnMain(t *testing.T) string {
	t.Helper()
	other := filepath.Join(t.TempDir(), "other")
	gitRun(t, filepath.Dir(other), "clone", "-q", "file://"+m.Remote, other)
	gitRun(t, other, "config", "user.name", "Colleague")
	gitRun(t, other, "config", "user.email", "colleague@example.com")
	if err := os.WriteFile(filepath.Join(other, "NOTES.md"), []byte("unrelated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, other, "add", "NOTES.md")
	gitRun(t, other, "commit", "-q", "-m", "docs: unrelated change")
	gitRun(t, other, "push", "-q", "origin", "main")
	return gitRun(t, other, "rev-parse", "HEAD")
}

// oneOpenMR returns the single open merge request, failing otherwise.
func (m *mrFleet) oneOpenMR(t *testing.T) gitlabfake.MR {
	t.Helper()
	var open []gitlabfake.MR
	for _, mr := range m.gl.MRs(mrProject) {
		if mr.State == "opened" {
			open = append(open, mr)
		}
	}
	if len(open) != 1 || len(m.gl.MRs(mrProject)) != 1 {
		t.Fatalf("want exactly one merge request, open; have %+v", m.gl.MRs(mrProject))
	}
	return open[0]
}

// checkMR asserts what the single open merge request must carry (its
// title starting with title), and that stdout names its URL.
func checkMR(t *testing.T, mr gitlabfake.MR, r result, branch, title string, wants ...string) {
	t.Helper()
	got := struct{ Source, Target string }{mr.SourceBranch, mr.TargetBranch}
	if d := cmp.Diff(struct{ Source, Target string }{branch, "main"}, got); d != "" {
		t.Errorf("merge request branches (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(mr.Title, title) {
		t.Errorf("title %q, want it to start with %q", mr.Title, title)
	}
	for _, w := range wants {
		if !strings.Contains(mr.Description, w) {
			t.Errorf("description lacks %q:\n%s", w, mr.Description)
		}
	}
	if len(mr.Labels) == 0 {
		t.Errorf("merge request has no labels")
	}
	if !strings.Contains(r.out, mr.WebURL) {
		t.Errorf("stdout does not print the merge request URL %s:\n%s", mr.WebURL, r.out)
	}
}
