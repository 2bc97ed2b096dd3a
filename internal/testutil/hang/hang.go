// Package hang is an HTTP handler that holds every request it gets, for
// tests that interrupt a process while it waits on a server.
package hang

import (
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Handler holds each request until the test ends or the client gives up,
// and says on Asked that one arrived.
type Handler struct {
	Asked   chan struct{}
	release chan struct{}
}

// New returns a Handler released when t ends.
func New(t *testing.T) *Handler {
	h := &Handler{Asked: make(chan struct{}, 64), release: make(chan struct{})}
	t.Cleanup(func() { close(h.release) })
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case h.Asked <- struct{}{}:
	default:
	}
	select {
	case <-h.release:
	case <-r.Context().Done():
	}
}

// Interrupt starts cmd, sends it sig once h was asked, and returns what
// Wait returns. It fails the test when the request or the exit does not
// come within a minute.
func Interrupt(t *testing.T, cmd *exec.Cmd, h *Handler, sig os.Signal) error {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.Asked:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("%s never asked the server", cmd.Path)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("%s still runs after %s", cmd.Path, sig)
	}
	return nil
}
