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
	drop  map[string]bool // facts the result on stdout states
	attrs []slog.Attr
}

// logger is the progress log of one verb. --quiet keeps warnings only.
// Facts the verb's result reports on stdout (the commit, the push, the
// merge request's fate) are dropped here, so that each fact is printed
// once: results on stdout, progress on stderr.
func logger(w io.Writer, o *options) *slog.Logger {
	h := &lineHandler{mu: &sync.Mutex{}, w: w, min: slog.LevelInfo}
	if o.Quiet {
		h.min = slog.LevelWarn
	}
	if o.mergeRequest {
		h.drop = map[string]bool{"closed stale merge request": true, "merge request branch already up to date": true}
	} else {
		h.drop = map[string]bool{"committed": true, "pushed": true}
	}
	return slog.New(h)
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn && h.drop[r.Message] {
		return nil
	}
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
	return &lineHandler{mu: h.mu, w: h.w, min: h.min, drop: h.drop, attrs: append(append([]slog.Attr{}, h.attrs...), as...)}
}

func (h *lineHandler) WithGroup(string) slog.Handler { return h }
