package promote

import (
	"context"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// What a run did is stated by its result and never logged as well: a
// caller printing both states each fact once without filtering the log.
// Each case checks that the result holds the fact and that no log record
// names it (the commit, the merge request), whatever its wording.
func TestResultFactsAreNotLogged(t *testing.T) {
	ctx := context.Background()
	dir, remote := factsRepo(t)
	repo, err := git.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	build := func(from, to string) BuildFunc {
		return func(target, source iofs.FS) (*Plan, error) {
			return BuildPromotionFrom(target, source, cfg, PromoteRequest{From: from, To: to})
		}
	}
	apply := func(log *slog.Logger, push bool, from string) *Apply {
		return &Apply{Repo: repo, Push: push, Remote: "origin", Branch: "main", Log: log,
			Source: &Source{Config: cfg, Env: from}}
	}

	t.Run("commit and push", func(t *testing.T) {
		rec := &records{}
		res, err := apply(rec.logger(), true, "qa").Run(ctx, build("qa", "preprod"))
		if err != nil || res.Commit == "" || !res.Pushed || res.Attempts != 1 {
			t.Fatalf("apply: %v %+v", err, res)
		}
		rec.mustNotName(t, res.Commit[:7])
	})

	t.Run("push of an earlier run's commit", func(t *testing.T) {
		rec := &records{}
		res, err := apply(rec.logger(), false, "preprod").Run(ctx, build("preprod", "prod"))
		if err != nil || res.Commit == "" || res.Pushed {
			t.Fatalf("apply without push: %v %+v", err, res)
		}
		res, err = apply(rec.logger(), true, "preprod").Run(ctx, build("preprod", "prod"))
		if err != nil || !res.UpToDate || !res.Pushed || res.Commit == "" {
			t.Fatalf("apply --push of the pending commit: %v %+v", err, res)
		}
		rec.mustNotName(t, res.Commit[:7])
	})

	t.Run("merge request pushed, then closed", func(t *testing.T) {
		gl := gitlabfake.New(t, gitlabfake.Options{})
		gl.AddProject(42, "group/project")
		client, err := gitlab.New(gitlab.Options{BaseURL: gl.URL(), Token: gl.Token()})
		if err != nil {
			t.Fatal(err)
		}
		m := &MergeRequest{Apply: *apply(nil, false, "preprod"), GitLab: client, Project: "group/project"}
		branch := func(*Plan) string { return "promote/preprod-to-prod" }
		// Someone reverts the prod promotion on the remote: the merge
		// request proposes it again.
		other := filepath.Join(t.TempDir(), "other")
		gitIn(t, filepath.Dir(other), "clone", "-q", "file://"+remote, other)
		gitIn(t, other, "revert", "--no-edit", "HEAD")
		gitIn(t, other, "push", "-q", "origin", "main")
		rec := &records{}
		m.Log = rec.logger()
		run, err := m.Run(ctx, build("preprod", "prod"), branch)
		if err != nil || !run.Pushed || run.Commit == "" || run.MR.URL == "" {
			t.Fatalf("merge request: %v %+v", err, run)
		}
		rec.mustNotName(t, run.Commit[:7], run.MR.URL)

		// Nothing changed: the branch is not pushed again, and the result
		// (Pushed false) is all that says so.
		rec = &records{}
		m.Log = rec.logger()
		if run, err = m.Run(ctx, build("preprod", "prod"), branch); err != nil || run.Pushed || run.UpToDate {
			t.Fatalf("unchanged rerun: %v %+v", err, run)
		}
		rec.mustNotName(t, run.SourceBranch, run.MR.URL)

		// The revert is reverted: the target holds the values again, and
		// the open merge request is stale.
		gitIn(t, other, "revert", "--no-edit", "HEAD")
		gitIn(t, other, "push", "-q", "origin", "main")
		rec = &records{}
		m.Log = rec.logger()
		run, err = m.Run(ctx, build("preprod", "prod"), branch)
		if err != nil || !run.UpToDate || run.Closed == nil {
			t.Fatalf("stale merge request: %v %+v", err, run)
		}
		rec.mustNotName(t, run.Closed.URL)
	})
}

// factsRepo is the example fleet committed in a work tree with a bare
// file:// remote.
func factsRepo(t *testing.T) (dir, remote string) {
	t.Helper()
	root := t.TempDir()
	dir, remote = filepath.Join(root, "repo"), filepath.Join(root, "remote.git")
	if err := os.CopyFS(dir, os.DirFS("../../examples/fleet")); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "Release Manager", "GIT_AUTHOR_EMAIL": "rm@example.com",
		"GIT_COMMITTER_NAME": "Release Manager", "GIT_COMMITTER_EMAIL": "rm@example.com"} {
		t.Setenv(k, v)
	}
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "config", "user.name", "Release Manager")
	gitIn(t, dir, "config", "user.email", "rm@example.com")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "initial layout")
	gitIn(t, root, "init", "-q", "--bare", "-b", "main", remote)
	gitIn(t, dir, "remote", "add", "origin", "file://"+remote)
	gitIn(t, dir, "push", "-q", "origin", "main")
	return dir, remote
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// records keeps every log record as one line of text.
type records struct {
	mu    sync.Mutex
	lines []string
}

func (r *records) logger() *slog.Logger { return slog.New(&recordHandler{r: r}) }

// mustNotName fails when a record names any of facts.
func (r *records) mustNotName(t *testing.T, facts ...string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.lines {
		for _, f := range facts {
			if strings.Contains(l, f) {
				t.Errorf("log record states %q, which the result states: %s", f, l)
			}
		}
	}
}

type recordHandler struct {
	r     *records
	attrs []slog.Attr
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *recordHandler) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	for _, a := range h.attrs {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	rec.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	h.r.mu.Lock()
	h.r.lines = append(h.r.lines, b.String())
	h.r.mu.Unlock()
	return nil
}

func (h *recordHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &recordHandler{r: h.r, attrs: append(append([]slog.Attr{}, h.attrs...), as...)}
}

func (h *recordHandler) WithGroup(string) slog.Handler { return h }
