// Package sshserver serves bare git repositories over SSH for tests, the
// way a GitLab SSH remote is reached from a release manager's laptop: the
// client authenticates with a key held by an SSH agent, checks the host
// key against known_hosts, and the server runs the real git-upload-pack
// and git-receive-pack. It takes a testing.TB, fails the test on setup
// errors and shuts down in t.Cleanup.
package sshserver

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/gitops-promote/gitops-promote/internal/tempdir"
)

// Server serves the bare repositories under one directory.
type Server struct {
	// Addr is 127.0.0.1:PORT.
	Addr string
	// KnownHosts is a known_hosts file naming the server's host key: point
	// SSH_KNOWN_HOSTS at it.
	KnownHosts string
	// AgentSocket is an SSH agent holding the one key the server accepts:
	// point SSH_AUTH_SOCK at it.
	AgentSocket string

	root    string
	allowed ssh.PublicKey
	ln      net.Listener
	wg      sync.WaitGroup
	conns   connSet
}

// connSet closes the connections clients leave open (go-git keeps its SSH
// and agent connections) when the test ends.
type connSet struct {
	mu sync.Mutex
	m  map[net.Conn]bool
}

func (c *connSet) add(conn net.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[net.Conn]bool{}
	}
	c.m[conn] = true
}

func (c *connSet) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for conn := range c.m {
		conn.Close()
	}
}

// New serves the bare repositories under root: ssh://git@ADDR/NAME.git is
// root/NAME.git.
func New(t testing.TB, root string) *Server {
	t.Helper()
	hostPub, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	check(t, err)
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	check(t, err)
	_, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	check(t, err)
	clientSigner, err := ssh.NewSignerFromKey(clientPriv)
	check(t, err)

	s := &Server{root: root, allowed: clientSigner.PublicKey()}
	cfg := &ssh.ServerConfig{PublicKeyCallback: s.checkKey}
	cfg.AddHostKey(hostSigner)
	s.ln, err = net.Listen("tcp", "127.0.0.1:0")
	check(t, err)
	s.Addr = s.ln.Addr().String()

	dir := t.TempDir()
	sshHostPub, err := ssh.NewPublicKey(hostPub)
	check(t, err)
	s.KnownHosts = filepath.Join(dir, "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(s.Addr)}, sshHostPub)
	check(t, os.WriteFile(s.KnownHosts, []byte(line+"\n"), 0o600))
	s.AgentSocket = serveAgent(t, clientPriv)

	s.wg.Add(1)
	go s.accept(cfg)
	t.Cleanup(func() {
		s.ln.Close()
		s.conns.closeAll()
		s.wg.Wait()
	})
	return s
}

// URL is the ssh:// URL of the repository root/name.
func (s *Server) URL(name string) string { return "ssh://git@" + s.Addr + "/" + name }

func (s *Server) checkKey(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
	if string(key.Marshal()) != string(s.allowed.Marshal()) {
		return nil, errors.New("unknown public key")
	}
	return nil, nil
}

func (s *Server) accept(cfg *ssh.ServerConfig) {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.conns.add(conn)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(conn, cfg)
		}()
	}
}

func (s *Server) serveConn(conn net.Conn, cfg *ssh.ServerConfig) {
	defer conn.Close()
	_, chans, reqs, err := ssh.NewServerConn(conn, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, requests, err := nc.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveSession(ch, requests)
		}()
	}
}

// serveSession runs the one exec request of a git session; env and other
// requests are declined, as a locked-down git host does.
func (s *Server) serveSession(ch ssh.Channel, requests <-chan *ssh.Request) {
	defer ch.Close()
	for req := range requests {
		if req.Type != "exec" {
			req.Reply(false, nil)
			continue
		}
		req.Reply(true, nil) // before running: the client waits for it
		code := s.exec(ch, string(payloadString(req.Payload)))
		ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, uint32(code)))
		return
	}
}

// exec runs `git-upload-pack '/name.git'` or `git-receive-pack ...`.
func (s *Server) exec(ch ssh.Channel, command string) int {
	verb, arg, _ := strings.Cut(command, " ")
	if verb != "git-upload-pack" && verb != "git-receive-pack" {
		fmt.Fprintf(ch.Stderr(), "unsupported command %q\n", verb)
		return 128
	}
	name := strings.Trim(strings.TrimSpace(arg), "'")
	dir := filepath.Join(s.root, filepath.FromSlash(strings.TrimPrefix(name, "/")))
	if rel, err := filepath.Rel(s.root, dir); err != nil || strings.HasPrefix(rel, "..") {
		fmt.Fprintf(ch.Stderr(), "repository %q outside the root\n", name)
		return 128
	}
	cmd := exec.Command("git", strings.TrimPrefix(verb, "git-"), dir)
	cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
	// Not cmd.Stdin = ch: Wait would wait for the copy from the channel,
	// which ends only when the client closes it, and the client waits for
	// the exit status first.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintf(ch.Stderr(), "%v\n", err)
		return 128
	}
	go func() {
		_, _ = io.Copy(stdin, ch)
		stdin.Close()
	}()
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		return 128
	}
	return 0
}

// payloadString decodes an SSH string (uint32 length, bytes).
func payloadString(p []byte) []byte {
	if len(p) < 4 {
		return nil
	}
	n := binary.BigEndian.Uint32(p)
	if int(n) > len(p)-4 {
		return nil
	}
	return p[4 : 4+n]
}

// serveAgent serves an agent holding key on a unix socket, in a directory
// short enough for it: test temp dirs can be too deep for a socket path.
func serveAgent(t testing.TB, key ed25519.PrivateKey) string {
	t.Helper()
	dir, err := tempdir.ForSocket("agent", "s")
	check(t, err)
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	check(t, err)
	keyring := agent.NewKeyring()
	check(t, keyring.Add(agent.AddedKey{PrivateKey: key, Comment: "test key"}))
	var wg sync.WaitGroup
	var conns connSet
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.add(c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				_ = agent.ServeAgent(keyring, c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		conns.closeAll()
		wg.Wait()
		os.RemoveAll(dir)
	})
	return sock
}

func check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("sshserver: %v", err)
	}
}
