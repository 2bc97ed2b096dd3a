package main

import (
	"path/filepath"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/sshserver"
)

// TestSSHPushWithAgent pushes through the promote binary to an ssh://
// origin, authenticating with the key in SSH_AUTH_SOCK's agent and
// checking the host key against SSH_KNOWN_HOSTS, as on a release
// manager's laptop. Without the agent apply fails before it commits (it
// fetches first), and neither the remote nor the local branch moves; the
// rerun with the agent commits and pushes.
func TestSSHPushWithAgent(t *testing.T) {
	f := newFleet(t)
	srv := sshserver.New(t, filepath.Dir(f.Remote))
	gitRun(t, f.Dir, "remote", "set-url", "origin", srv.URL(filepath.Base(f.Remote)))
	before := gitRun(t, f.Remote, "rev-parse", "main")
	args := []string{"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push", "--output", "json"}

	r := runPromote(t, f.Dir, processEnv(t, "SSH_KNOWN_HOSTS="+srv.KnownHosts), args...)
	if r.code != 1 || gitRun(t, f.Remote, "rev-parse", "main") != before || gitRun(t, f.Dir, "rev-parse", "HEAD") != before {
		t.Fatalf("without an agent: exit %d, want 1, and the remote and HEAD unchanged\nstderr: %s", r.code, r.errOut)
	}
	t.Logf("without an agent: %s", r.errOut)

	r = runPromote(t, f.Dir, processEnv(t, "SSH_AUTH_SOCK="+srv.AgentSocket, "SSH_KNOWN_HOSTS="+srv.KnownHosts), args...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.errOut)
	}
	res := decodeResult(t, r)
	head := gitRun(t, f.Dir, "rev-parse", "HEAD")
	if remote := gitRun(t, f.Remote, "rev-parse", "main"); res.UpToDate || !res.Pushed || res.Commit != head || remote != head {
		t.Errorf("up to date %v, pushed %v commit %s; local HEAD %s, remote main %s", res.UpToDate, res.Pushed, res.Commit, head, remote)
	}
}
