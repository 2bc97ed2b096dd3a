package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// staleFleet: clone C pinned qa's api image to v3.3.0 and pushed; the
// fleet's own clone (D) has not pulled and still has v3.2.0 in qa.
type staleFleet struct {
	*fleet
	remote remote
	env    []string
	gl     *gitlabfake.Server
	theirs string // C's commit, the remote tip
}

func newStaleFleet(t *testing.T, transport string, mr bool) *staleFleet {
	t.Helper()
	f := newFleet(t)
	s := &staleFleet{fleet: f, remote: serveRemote(t, f, transport)}
	s.env = processEnv(t, s.remote.env...)
	if mr {
		gitRun(t, f.Remote, "config", "receive.denyNonFastForwards", "true")
		s.gl = gitlabfake.New(t, gitlabfake.Options{})
		s.gl.AddProject(42, mrProject)
		s.env = append(s.env, "CI_API_V4_URL="+s.gl.URL(), "CI_PROJECT_ID="+mrProject, "GITLAB_TOKEN="+s.gl.Token())
	}
	c := f.clone(t, "c", "Pipeline C")
	s.remote.use(t, c)
	if r := runPromote(t, c, s.env, "pin", "--env", "qa", "ledger-node.api.imageTag=v3.3.0", "--push", "--skip-chart-check"); r.code != 0 {
		t.Fatalf("C's pin: exit %d\n%s", r.code, r.errOut)
	}
	s.remote.use(t, f.Dir)
	s.theirs = gitRun(t, f.Remote, "rev-parse", "main")
	return s
}

func (s *staleFleet) apply(t *testing.T, mr bool, extra ...string) result {
	t.Helper()
	args := []string{"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push"}
	if mr {
		args[len(args)-1] = "--merge-request"
	}
	return runPromote(t, s.Dir, s.env, append(args, extra...)...)
}

// TestStaleSourceRefused is issue 9's first item: a clone that has not
// pulled would promote qa's old values. Both --push and --merge-request
// read qa at the local HEAD, see that origin/main's qa differs, and
// refuse with one line per field and the two ways out: nothing pushed, no
// branch created, the local clone as it was. Naming the source revision
// then promotes exactly that commit's values, the same in both modes.
func TestStaleSourceRefused(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			landed := map[bool]string{}
			for _, mr := range []bool{false, true} {
				t.Run(map[bool]string{false: "push", true: "merge-request"}[mr], func(t *testing.T) {
					s := newStaleFleet(t, transport, mr)
					head := gitRun(t, s.Dir, "rev-parse", "HEAD")
					r := s.apply(t, mr)
					if r.code != 1 {
						t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.out, r.errOut)
					}
					lines := strings.Split(r.errOut, "\n")
					for _, want := range []string{"  ledger-node.api.imageTag: local v3.2.0, origin/main v3.3.0", "git pull", "--source-rev HEAD"} {
						if !containsLine(lines, want) {
							t.Errorf("stderr lacks %q:\n%s", want, r.errOut)
						}
					}
					if strings.Count(r.errOut, ": local ") != 1 {
						t.Errorf("want exactly one differing field, got:\n%s", r.errOut)
					}
					s.checkUntouched(t, head, mr)

					// The way out: name the revision. HEAD's qa is promoted,
					// on top of C's commit.
					r = s.apply(t, mr, "--source-rev", "HEAD")
					if r.code != 0 {
						t.Fatalf("with --source-rev HEAD: exit %d\n%s", r.code, r.errOut)
					}
					landed[mr] = s.checkLanded(t, head, mr)
				})
			}
			if landed[false] != landed[true] {
				t.Errorf("--push and --merge-request landed different preprod values:\n%s\n---\n%s", landed[false], landed[true])
			}
		})
	}
}

// TestStaleSourcePulled: the other way out. After a pull, HEAD's qa is
// origin/main's, and the promotion carries C's value.
func TestStaleSourcePulled(t *testing.T) {
	s := newStaleFleet(t, "file", false)
	if r := s.apply(t, false); r.code != 1 {
		t.Fatalf("stale apply: exit %d, want 1", r.code)
	}
	gitRun(t, s.Dir, "pull", "-q", "--ff-only", "origin", "main")
	if r := s.apply(t, false); r.code != 0 {
		t.Fatalf("apply after pull: exit %d\n%s", r.code, r.errOut)
	}
	if got := gitRun(t, s.Remote, "show", "main:versions/preprod.yaml"); !strings.Contains(got, `imageTag: "v3.3.0"`) {
		t.Errorf("preprod after the pull does not carry C's v3.3.0:\n%s", got)
	}
}

// checkUntouched: nothing was pushed, no branch or merge request was
// created, and the local clone is as it was.
func (s *staleFleet) checkUntouched(t *testing.T, head string, mr bool) {
	t.Helper()
	if got := gitRun(t, s.Remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads"); got != "refs/heads/main "+s.theirs {
		t.Errorf("remote refs changed:\n%s", got)
	}
	if mr && len(s.gl.MRs(mrProject)) != 0 {
		t.Errorf("merge requests created: %+v", s.gl.MRs(mrProject))
	}
	if got := gitRun(t, s.Dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("local HEAD moved %s -> %s", head, got)
	}
	if st := gitRun(t, s.Dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("local status:\n%s", st)
	}
}

// checkLanded: the promotion (on main, or on the merge request branch) is
// one commit on C's, promoting source's qa, and says so in its trailer.
// It returns the promoted versions file.
func (s *staleFleet) checkLanded(t *testing.T, source string, mr bool) string {
	t.Helper()
	ref := "main"
	if mr {
		ref = promoteBranch
	}
	if parent := gitRun(t, s.Remote, "rev-parse", ref+"^1"); parent != s.theirs {
		t.Errorf("%s built on %s, want C's commit %s", ref, parent, s.theirs)
	}
	if msg := gitRun(t, s.Remote, "log", "-1", "--format=%B", ref); !strings.Contains(msg, fmt.Sprintf("Promoted-From: qa@%s", source)) {
		t.Errorf("trailer does not name the source commit %s:\n%s", source, msg)
	}
	got := gitRun(t, s.Remote, "show", ref+":versions/preprod.yaml")
	if !strings.Contains(got, `imageTag: "v3.2.0"`) {
		t.Errorf("preprod does not carry HEAD's v3.2.0:\n%s", got)
	}
	return got
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.Contains(l, want) {
			return true
		}
	}
	return false
}
