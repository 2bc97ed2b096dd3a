package jsonnetproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Evaluate runs job in a child process and returns the JSON it
// evaluates to, or go-jsonnet's error text as an error. read serves the
// file rel (relative to job.Root) the program imports; trace receives
// std.trace's output. Past Timeout it is ErrTimeout, past Memory, Stack
// or MaxOutput ErrTooLarge; when ctx is done first, ctx's cause.
func Evaluate(ctx context.Context, job Job, read func(rel string) (found bool, data []byte, err error), trace io.Writer) (string, error) {
	if !hooked.Load() {
		return "", ErrNotInstalled
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("starting the jsonnet evaluator: %w", err)
	}
	tctx, cancel := context.WithTimeoutCause(ctx, timeout, errDeadline)
	defer cancel()
	cmd := exec.CommandContext(tctx, exe, childArg)
	cmd.Env = []string{} // nothing of the run's environment, credentials least
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second
	stderr := &capped{max: 16 << 10}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("starting the jsonnet evaluator: %w", err)
	}
	// the JSON of a result escapes some bytes: room for that, then the
	// result's own length is checked
	wire := &io.LimitedReader{R: stdout, N: 2*MaxOutput + 1<<20}
	res, talkErr := talk(job, stdin, json.NewDecoder(wire), read, trace)
	if talkErr != nil {
		_ = cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return "", context.Cause(ctx)
	case errors.Is(context.Cause(tctx), errDeadline):
		return "", fmt.Errorf("%w (more than %v)", ErrTimeout, timeout)
	case wire.N <= 0 || errors.Is(talkErr, errOutput):
		return "", fmt.Errorf("%w: output of more than %d MiB", ErrTooLarge, MaxOutput>>20)
	}
	if died := crashed(stderr.String(), waitErr); died != nil {
		return "", died
	}
	if talkErr != nil {
		return "", talkErr
	}
	return res.Result, resultErr(res)
}

// timeout is Timeout, shorter in tests.
var timeout = Timeout

var (
	errDeadline = errors.New("jsonnet deadline")
	errOutput   = errors.New("output too large")
)

// talk sends the job, answers the child's reads and collects its traces
// until it is done.
func talk(job Job, stdin io.WriteCloser, dec *json.Decoder, read func(string) (bool, []byte, error), trace io.Writer) (message, error) {
	defer stdin.Close()
	enc := json.NewEncoder(stdin)
	if err := enc.Encode(job); err != nil {
		return message{}, fmt.Errorf("jsonnet evaluator: %w", err)
	}
	for {
		var m message
		if err := dec.Decode(&m); err != nil {
			return message{}, fmt.Errorf("jsonnet evaluator: %w", err)
		}
		switch {
		case m.Done:
			if len(m.Result) > MaxOutput {
				return message{}, errOutput
			}
			return m, nil
		case m.Trace != "":
			_, _ = io.WriteString(trace, m.Trace)
		default:
			var a answer
			found, data, err := read(m.Read)
			a.Found, a.Data = found, data
			if err != nil {
				a.Error = err.Error()
			}
			if err := enc.Encode(a); err != nil {
				return message{}, fmt.Errorf("jsonnet evaluator: %w", err)
			}
		}
	}
}

func resultErr(m message) error {
	if m.Error != "" {
		return errors.New(m.Error)
	}
	return nil
}

// crashed says why the child died, in the runtime's words on stderr.
func crashed(stderr string, waitErr error) error {
	var ee *exec.ExitError
	if waitErr == nil || !errors.As(waitErr, &ee) {
		return nil
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGXCPU {
		return fmt.Errorf("%w (its CPU time limit)", ErrTimeout)
	}
	switch {
	case strings.Contains(stderr, "stack overflow") || strings.Contains(stderr, "stack exceeds"):
		return fmt.Errorf("%w: its recursion exhausted the stack (%d MiB)", ErrTooLarge, Stack>>20)
	case strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory"):
		return fmt.Errorf("%w: it needed more than %d MiB of memory", ErrTooLarge, Memory>>20)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	return fmt.Errorf("jsonnet evaluator died (%v): %s", waitErr, line)
}

// capped keeps the first max bytes written to it.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }
