package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// ErrInterrupted is the cause of a SignalContext cancelled by a signal.
var ErrInterrupted = errors.New("interrupted")

// SignalContext returns a context cancelled by the first SIGINT or
// SIGTERM, like signal.NotifyContext's, with a cause that says so in the
// words of a one-line error ("interrupted by SIGINT") and that callers
// can branch on (ErrInterrupted). The handler stays until the process
// exits. (Installing it on a goroutine of its own, off the start of the
// run, measured no faster: the threads it starts cost the same there.)
func SignalContext() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		name := "SIGTERM"
		if <-ch == os.Interrupt {
			name = "SIGINT"
		}
		cancel(fmt.Errorf("%w by %s", ErrInterrupted, name))
	}()
	return ctx
}
