package kustomizehelm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/tempdir"
)

// request and response are what travels over the socket: the arguments
// kustomize gave helm, and what helm would print and exit with.
type request struct {
	Args []string `json:"args"`
}

type response struct {
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
	Code   int    `json:"code"`
}

// Command is one served helm command: give Path to kustomize as
// HelmConfig.Command, Close it after the build.
type Command struct {
	// Path is the link kustomize executes.
	Path string

	ctx     context.Context
	backend Backend
	dir     string
	ln      net.Listener
	wg      sync.WaitGroup

	mu  sync.Mutex
	err error // the first command that failed
}

// Start serves a helm command answered by b, for one build: requests are
// served with ctx, so a cancelled render fails its helm commands at once.
func Start(ctx context.Context, b Backend) (*Command, error) {
	if !Installed() {
		return nil, ErrNotInstalled
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("kustomize's helm: finding this executable: %w", err)
	}
	// Mode 0700: only this user reaches the socket.
	dir, err := tempdir.ForSocket(dirPrefix, socketName)
	if err != nil {
		return nil, fmt.Errorf("kustomize's helm: %w", err)
	}
	c := &Command{Path: filepath.Join(dir, commandName), ctx: ctx, backend: b, dir: dir}
	if err := os.Symlink(exe, c.Path); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("kustomize's helm: %w", err)
	}
	c.ln, err = net.Listen("unix", filepath.Join(dir, socketName))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("kustomize's helm: %w", err)
	}
	c.wg.Add(1)
	go c.serve()
	return c, nil
}

// Err is the error of the first helm command that failed, if any: the
// cause to report when the build fails, rather than kustomize's wrapping
// of helm's standard error.
func (c *Command) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close stops serving and removes the link and the socket.
func (c *Command) Close() error {
	err := c.ln.Close()
	c.wg.Wait()
	if rerr := os.RemoveAll(c.dir); err == nil {
		err = rerr
	}
	return err
}

func (c *Command) serve() {
	defer c.wg.Done()
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			return // closed
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.answer(conn)
		}()
	}
}

func (c *Command) answer(conn net.Conn) {
	defer conn.Close()
	var req request
	if err := json.NewDecoder(conn).Decode(&req); err != nil {
		c.fail(fmt.Errorf("kustomize's helm: reading the request: %w", err))
		return
	}
	out, err := c.run(req.Args)
	resp := response{Stdout: out}
	if err != nil {
		c.fail(err)
		resp = response{Stderr: []byte("Error: " + err.Error() + "\n"), Code: 1}
	}
	_ = json.NewEncoder(conn).Encode(resp) // a client that went away has nothing to read
}

func (c *Command) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

// forward is the helm process's side: it sends args to the serving
// process and prints its answer, returning helm's exit code.
func forward(socket string, args []string, stdout, stderr io.Writer) int {
	code, err := exchange(socket, args, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "Error: kustomize's helm (gitops-promote): %v\n", err)
		return 1
	}
	return code
}

func exchange(socket string, args []string, stdout, stderr io.Writer) (int, error) {
	conn, err := net.DialTimeout("unix", socket, 10*time.Second)
	if err != nil {
		return 0, fmt.Errorf("the process that started this build is gone: %w", err)
	}
	defer conn.Close()
	if err := json.NewEncoder(conn).Encode(request{Args: args}); err != nil {
		return 0, err
	}
	var resp response
	if err := json.NewDecoder(conn).Decode(&resp); err != nil {
		if errors.Is(err, io.EOF) {
			return 0, errors.New("no answer from the process that started this build")
		}
		return 0, err
	}
	if _, err := stdout.Write(resp.Stdout); err != nil {
		return 0, err
	}
	if _, err := stderr.Write(resp.Stderr); err != nil {
		return 0, err
	}
	return resp.Code, nil
}
