package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// lineHandler writes "promote: msg key=value" lines: progress for people
// on stderr, without slog's timestamps and level fields.
type lineHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	min   slog.Level
	attrs []slog.Attr
}

// logger is the progress log of one verb. --quiet keeps warnings only.
// Each fact is printed once without filtering here: internal/promote logs
// progress only and states what a run did (the commit, the push, the
// merge request's fate) in its result, which goes to stdout.
func logger(w io.Writer, o *options) *slog.Logger {
	h := &lineHandler{mu: &sync.Mutex{}, w: w, min: slog.LevelInfo}
	if o.Quiet {
		h.min = slog.LevelWarn
	}
	return slog.New(h)
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("promote: ")
	if r.Level >= slog.LevelWarn {
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &lineHandler{mu: h.mu, w: h.w, min: h.min, attrs: append(append([]slog.Attr{}, h.attrs...), as...)}
}

func (h *lineHandler) WithGroup(string) slog.Handler { return h }
