package manifestdiff

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/report"
)

// ErrInterrupted marks a run whose context was cancelled while apps were
// still rendering: the report holds every app that finished before, and
// the others as not rendered (see interrupted). It is no app's failure.
var ErrInterrupted = errors.New("interrupted")

// ErrAppTimeout marks an app whose renders took longer than its bound
// (Diff.AppTimeout): a Helm template that loops does not watch the
// context, so the app is left behind and reported as failed, and the run
// goes on.
var ErrAppTimeout = errors.New("renders took too long")

// DefaultAppTimeout bounds one app's renders together (up to three
// renders of each source): Argo CD gives each helm or kustomize command
// 90 s (ARGOCD_EXEC_TIMEOUT); the largest app of the 1000-node bench
// renders in well under a second.
const DefaultAppTimeout = 5 * time.Minute

func (d *Diff) appTimeout() time.Duration {
	if d.AppTimeout > 0 {
		return d.AppTimeout
	}
	return DefaultAppTimeout
}

// timedOutApp is the report entry of an app left behind at its bound.
func timedOutApp(env, name, namespace string, bound time.Duration) report.App {
	return report.App{Env: env, Name: name, Namespace: namespace, Status: report.StatusError,
		Error: fmt.Sprintf("env %s, app %s: %v: more than %s; left unrendered (a template or build that does not end)",
			env, name, ErrAppTimeout, bound)}
}

// settleGrace is how long an interrupted run waits for the renders in
// flight before it leaves them: most engines watch the context and stop
// at once, but a Helm template loop or a kustomize build does not, and a
// signal must stop the run within seconds (CI gives SIGKILL after SIGTERM).
const settleGrace = 300 * time.Millisecond

// interruptible runs f, and returns early once ctx is done and f has not
// returned within settleGrace; the abandoned f keeps running until the
// process exits, touching only what it was given. It reports whether f
// finished.
func interruptible(ctx context.Context, f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
	}
	select {
	case <-done:
		return true
	case <-time.After(settleGrace):
		return false
	}
}

// interruptedApp is the report entry of an app a signal left unrendered:
// an error, never "unchanged", so that no reader takes it for a finished
// comparison.
func interruptedApp(ctx context.Context, env, name, namespace string) report.App {
	return report.App{Env: env, Name: name, Namespace: namespace, Status: report.StatusError,
		NotRendered: "interrupted",
		Error:       oneLine(fmt.Sprintf("env %s, app %s: not rendered: %v", env, name, context.Cause(ctx)))}
}

// interruptError says how many apps a signal left unrendered, in the
// words of the context's cause ("interrupted by SIGTERM: 3 apps not
// rendered"); it is ErrInterrupted and the cause.
func interruptError(ctx context.Context, n int) error {
	cause := context.Cause(ctx)
	return interruptErr{fmt.Errorf("%w: %s not rendered", cause, count(n, "app", "apps")), cause}
}

type interruptErr struct {
	error
	cause error
}

func (e interruptErr) Unwrap() []error { return []error{e.cause, ErrInterrupted} }
