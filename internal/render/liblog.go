package render

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// The libraries below the renderers log through the process's default
// loggers, not through anything a render hands them: Helm 4 and parts of
// Helm 3 call slog.Warn and friends, Helm 3's value coalescing and
// chart loading and kustomize's var expansion call log.Printf. Left
// alone, that reaches stderr unformatted, once per render, naming no
// app, and a coalesce warning quotes the value it drops.
//
// LibraryHandler is the default slog handler a command installs
// (slog.SetDefault, which also routes the log package through it). A
// record logged on a goroutine that is inside Render belongs to that
// render: it joins its notices, which Render reports through Input.Log.
// Any other record goes to next, as one cleaned line (scrub's known
// forms, quoted spans and URL userinfo masked: no render's inputs are at
// hand to say more). Renders run one per goroutine and the
// engines log on the goroutine that calls them, so the goroutine is
// what ties a record to its app.

var (
	// captures maps a goroutine id to the notices of the render it runs.
	captures sync.Map
	// active counts the captures, so that a record logged while none
	// is active costs no goroutine lookup.
	active atomic.Int64
	// installed is set once a LibraryHandler exists: before that no
	// record can be captured, and renders register nothing.
	installed atomic.Bool
)

// LibraryHandler returns the handler to install as the process default
// logger: records of a render go to its notices, the rest to next.
func LibraryHandler(next slog.Handler) slog.Handler {
	installed.Store(true)
	return &libraryHandler{next: next}
}

type libraryHandler struct {
	next  slog.Handler
	attrs []slog.Attr // from WithAttrs, for captured records
}

func (h *libraryHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelInfo && active.Load() > 0 || h.next.Enabled(ctx, level)
}

func (h *libraryHandler) Handle(ctx context.Context, r slog.Record) error {
	if active.Load() > 0 {
		if n, ok := captures.Load(goroutineID()); ok {
			level, msg := libraryLevel(r.Level, r.Message)
			n.(*notices).add(level, msg+recordAttrs(h.attrs, r))
			return nil
		}
	}
	if !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	// not a render's: no inputs to mask, but what a library quotes is
	// masked all the same, as in any library error we print
	level, msg := libraryLevel(r.Level, r.Message)
	clean := slog.NewRecord(r.Time, level, (*scrub.Set)(nil).Foreign(msg+recordAttrs(nil, r)), r.PC)
	return h.next.Handle(ctx, clean)
}

func (h *libraryHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &libraryHandler{next: h.next.WithAttrs(as), attrs: append(append([]slog.Attr{}, h.attrs...), as...)}
}

func (h *libraryHandler) WithGroup(name string) slog.Handler {
	return &libraryHandler{next: h.next.WithGroup(name), attrs: h.attrs}
}

// recordAttrs formats a record's attributes as " key=value" pairs.
func recordAttrs(pre []slog.Attr, r slog.Record) string {
	var b strings.Builder
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value.Resolve())
		return true
	}
	for _, a := range pre {
		write(a)
	}
	r.Attrs(write)
	return b.String()
}

// capture routes the library records of the calling goroutine to n until
// the returned function is called. It registers nothing when no
// LibraryHandler was installed, or for a kind whose engine logs nothing
// (reading the goroutine id costs a few microseconds: negligible beside
// a Helm or kustomize render, not beside a small directory).
func (n *notices) capture(kind string) func() {
	if !installed.Load() || !logsThroughLibraries[kind] {
		return func() {}
	}
	id := goroutineID()
	captures.Store(id, n)
	active.Add(1)
	return func() {
		captures.Delete(id)
		active.Add(-1)
	}
}

// logsThroughLibraries lists the source kinds whose engines log through
// the default loggers (jsonnet's std.trace goes to the VM's own writer).
var logsThroughLibraries = map[string]bool{argo.KindHelm: true, argo.KindKustomize: true}

// goroutineID reads the current goroutine's id from the first line of
// its stack trace ("goroutine 18 [running]:"). Go offers no other way;
// the format has been stable since Go 1.
func goroutineID() uint64 {
	var buf [64]byte
	s, _ := strings.CutPrefix(string(buf[:runtime.Stack(buf[:], false)]), "goroutine ")
	var id uint64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
