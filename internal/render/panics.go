package render

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"runtime"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// ErrPanic marks a render that panicked inside an engine (Helm 3 or 4,
// kustomize, go-jsonnet, a template function) or our code below Render:
// a bug there, not in the app's inputs. Render returns it as that app's
// error, so one such app never stops the others.
var ErrPanic = errors.New("panicked")

// PanicError is a panic recovered by Render.
type PanicError struct {
	Engine string // "helm 4", "kustomize", ...
	Value  string // what was passed to panic
	At     string // the function and file:line that panicked, as far as known
}

func (e *PanicError) Error() string {
	msg := e.Engine + " panicked: " + oneLine(e.Value)
	if e.At != "" {
		msg += " (at " + e.At + ")"
	}
	return msg
}

func (e *PanicError) Is(target error) bool { return target == ErrPanic }

// recovered turns a recovered panic value into the app's error. It must
// be called by the deferred function itself, so that the panicking frames
// are still on the stack.
func recovered(p any, req *argo.Request) error {
	pe := &PanicError{Engine: engineOf(req), Value: fmt.Sprint(p), At: panicSite()}
	return fmt.Errorf("env %s, app %s, %s: %w", req.Env, req.App, sourceName(req), pe)
}

// Recovered turns a panic recovered outside Render (resolving a source,
// parsing or diffing what was rendered, comparing with a cluster) into an
// error wrapping ErrPanic: what was being done, the panic and where it
// happened. It must be called by the deferred function that recovered.
func Recovered(p any, doing string) *PanicError {
	return &PanicError{Engine: doing, Value: fmt.Sprint(p), At: panicSite()}
}

// engineOf names the tool a request runs, for the panic's message.
func engineOf(req *argo.Request) string {
	switch req.Kind {
	case argo.KindHelm:
		if req.Helm != nil && req.Helm.HelmMajor == 3 {
			return "helm 3"
		}
		return "helm 4"
	case argo.KindKustomize:
		return "kustomize"
	case argo.KindDirectory:
		return "the directory renderer"
	}
	return req.Kind + " renderer"
}

// sourceName says which source, as the renderers' own errors do.
func sourceName(req *argo.Request) string {
	if req.Kind == argo.KindHelm {
		return fmt.Sprintf("chart %s version %s", firstNonEmpty(req.Source.Chart, req.Source.Path), req.Source.TargetRevision)
	}
	return req.Kind + " source " + req.Source.Path
}

// panicSite is the first frame below the panic that is not the runtime's:
// "helm.sh/helm/v4/internal/chart/v3/util.processDependencyEnabled,
// dependencies.go:155". File names only: module cache paths say nothing.
func panicSite() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs) // runtime.Callers, panicSite, recovered
	frames := runtime.CallersFrames(pcs[:n])
	seenPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			seenPanic = true
		case seenPanic && !strings.HasPrefix(f.Function, "runtime."):
			return fmt.Sprintf("%s, %s:%d", f.Function, path.Base(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// jsonnetCrash reduces go-jsonnet's own recovered panic, "(CRASH) value"
// followed by a goroutine dump, to the value and where it happened: the
// dump would be the app's one-line error otherwise. It is nil for any
// other error.
func jsonnetCrash(msg string) *PanicError {
	_, rest, ok := strings.Cut(msg, "(CRASH) ")
	if !ok {
		return nil
	}
	value, dump, _ := strings.Cut(rest, "\n")
	return &PanicError{Engine: "go-jsonnet", Value: value, At: dumpSite(dump)}
}

// callArgs is the argument list a goroutine dump prints after a function.
var callArgs = regexp.MustCompile(`\([^()]*\)$`)

// dumpSite finds in a goroutine dump (debug.Stack) the first function
// below panic(...) that is not the runtime's, as panicSite does.
func dumpSite(dump string) string {
	lines := strings.Split(dump, "\n")
	seenPanic := false
	for i := 0; i+1 < len(lines); i++ {
		fn := strings.TrimSpace(lines[i])
		if strings.HasPrefix(fn, "panic(") {
			seenPanic = true
			i++ // its file line
			continue
		}
		if !seenPanic || strings.HasPrefix(fn, "runtime.") || !strings.HasPrefix(lines[i+1], "\t") {
			continue
		}
		file := strings.Fields(strings.TrimSpace(lines[i+1]))
		if len(file) == 0 {
			return ""
		}
		return callArgs.ReplaceAllString(fn, "") + ", " + path.Base(file[0])
	}
	return ""
}
