package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/gitops-promote/gitops-promote/internal/testutil/sshserver"
)

// sshClones serves a fresh remote over SSH and returns two clones whose
// origin is its ssh:// URL, with the agent and known_hosts of the server
// in the environment (go-git reads SSH_AUTH_SOCK and SSH_KNOWN_HOSTS).
func sshClones(t *testing.T) (srv *sshserver.Server, bare, a, b string) {
	t.Helper()
	bare, a, b = newRemote(t)
	srv = sshserver.New(t, filepath.Dir(bare))
	t.Setenv("SSH_AUTH_SOCK", srv.AgentSocket)
	t.Setenv("SSH_KNOWN_HOSTS", srv.KnownHosts)
	for _, dir := range []string{a, b} {
		run(t, dir, "remote", "set-url", "origin", srv.URL("remote.git"))
	}
	return srv, bare, a, b
}

// Pushing over SSH with the agent's key: a push lands, a push whose base
// moved is ErrRejected (and can be rebuilt after a fetch), as over HTTPS.
func TestPushFetchSSH(t *testing.T) {
	ctx := context.Background()
	srv, bare, a, b := sshClones(t)
	auth, err := AuthFor(srv.URL("remote.git"), "")
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := openRepo(t, a), openRepo(t, b)
	base := revParse(t, a, "HEAD")

	c1 := commitFiles(t, ra, base, map[string]string{"apps/web/values.yaml": "image:\n  tag: v2\n"}, "a")
	if err := ra.Push(ctx, "origin", "main", c1, auth); err != nil {
		t.Fatalf("Push over ssh: %v", err)
	}
	if got := revParse(t, bare, "main"); got != c1 {
		t.Fatalf("remote main = %s, want %s", got, c1)
	}
	c2 := commitFiles(t, rb, base, map[string]string{"apps/api/values.yaml": "image:\n  tag: v2\n"}, "b")
	if err := rb.Push(ctx, "origin", "main", c2, auth); !errors.Is(err, ErrRejected) {
		t.Fatalf("Push after the remote moved: err = %v, want ErrRejected", err)
	}
	tip, err := rb.Fetch(ctx, "origin", "main", auth)
	if err != nil || tip != c1 {
		t.Fatalf("Fetch over ssh = %s, %v; want %s", tip, err, c1)
	}
	c3 := commitFiles(t, rb, c1, map[string]string{"apps/api/values.yaml": "image:\n  tag: v2\n"}, "b again")
	if err := rb.Push(ctx, "origin", "main", c3, auth); err != nil {
		t.Fatalf("Push after fetch and rebuild: %v", err)
	}
	if got := revParse(t, bare, "main"); got != c3 {
		t.Errorf("remote main = %s, want %s", got, c3)
	}
	run(t, bare, "fsck", "--strict", "--no-dangling")
}

// A host key that known_hosts does not vouch for, or an agent without the
// accepted key, fails the push and moves nothing.
func TestPushSSHRefusals(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, srv *sshserver.Server)
		want  string
	}{
		{"unknown host key", func(t *testing.T, srv *sshserver.Server) {
			other := sshserver.New(t, t.TempDir()) // a different host key for the same name
			data, err := os.ReadFile(other.KnownHosts)
			if err != nil {
				t.Fatal(err)
			}
			fake := strings.Replace(string(data), knownhosts.Normalize(other.Addr), knownhosts.Normalize(srv.Addr), 1)
			p := filepath.Join(t.TempDir(), "known_hosts")
			if err := os.WriteFile(p, []byte(fake), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("SSH_KNOWN_HOSTS", p)
		}, "key mismatch"},
		{"agent without the key", func(t *testing.T, srv *sshserver.Server) {
			other := sshserver.New(t, t.TempDir())
			t.Setenv("SSH_AUTH_SOCK", other.AgentSocket)
		}, "unable to authenticate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, bare, a, _ := sshClones(t)
			tc.setup(t, srv)
			before := revParse(t, bare, "main")
			r := openRepo(t, a)
			c1 := commitFiles(t, r, before, map[string]string{"x.yaml": "x: 1\n"}, "x")
			auth, err := AuthFor(srv.URL("remote.git"), "")
			if err == nil {
				err = r.Push(context.Background(), "origin", "main", c1, auth)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
			if got := revParse(t, bare, "main"); got != before {
				t.Errorf("remote main moved to %s", got)
			}
		})
	}
}
