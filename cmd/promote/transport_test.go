package main

import (
	"path/filepath"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitserver"
	"github.com/gitops-promote/gitops-promote/internal/testutil/sshserver"
)

// transports are the remotes the promotion-correctness scenarios run
// against: the bare repository over file://, over HTTPS through the real
// git http-backend with a token, and over SSH with an agent.
var transports = []string{"file", "https", "ssh"}

// remote is the fleet's bare repository served over one transport.
type remote struct {
	url string
	env []string // what a promote process needs to reach it
}

func serveRemote(t *testing.T, f *fleet, kind string) remote {
	t.Helper()
	switch kind {
	case "file":
		return remote{url: "file://" + f.Remote}
	case "https":
		srv := gitserver.New(t, f.Remote, goodToken, gitserver.WithTLS())
		return remote{url: srv.URL, env: []string{"GIT_TOKEN=" + goodToken, "SSL_CERT_FILE=" + srv.CAFile}}
	case "ssh":
		srv := sshserver.New(t, filepath.Dir(f.Remote))
		return remote{url: srv.URL(filepath.Base(f.Remote)), env: []string{"SSH_AUTH_SOCK=" + srv.AgentSocket, "SSH_KNOWN_HOSTS=" + srv.KnownHosts}}
	}
	t.Fatalf("unknown transport %q", kind)
	return remote{}
}

// use points the clone dir's origin at the remote.
func (r remote) use(t *testing.T, dir string) {
	t.Helper()
	gitRun(t, dir, "remote", "set-url", "origin", r.url)
}
