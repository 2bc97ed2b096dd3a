package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/gitops-promote/gitops-promote/internal/render"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// lineHandler writes each record as one stderr line,
// "manifestdiff: warning: env qa, app web: msg key=value", and each
// distinct line once: three renders of an app, or the same warning
// logged by two libraries, say it once.
type lineHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	min   slog.Level
	seen  map[string]bool
	attrs []slog.Attr
	// tty: stderr is a terminal, where a progress line ("rendering 3/10",
	// no newline) may be showing: a line first clears it, and the next
	// progress update redraws it below.
	tty bool
}

// newLogger is the command's logger: progress and the tools' notices on
// stderr. --quiet keeps warnings only.
func newLogger(w io.Writer, quiet, tty bool) *slog.Logger {
	h := &lineHandler{mu: &sync.Mutex{}, w: w, min: slog.LevelInfo, seen: map[string]bool{}, tty: tty}
	if quiet {
		h.min = slog.LevelWarn
	}
	return slog.New(h)
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var where, rest []string
	each := func(a slog.Attr) bool {
		switch a.Key {
		case "env", "app":
			where = append(where, a.Key+" "+a.Value.String())
		default:
			rest = append(rest, fmt.Sprintf("%s=%v", a.Key, a.Value.Resolve()))
		}
		return true
	}
	for _, a := range h.attrs {
		each(a)
	}
	r.Attrs(each)
	var b strings.Builder
	b.WriteString("manifestdiff: ")
	if r.Level >= slog.LevelWarn {
		b.WriteString("warning: ")
	}
	if len(where) > 0 {
		b.WriteString(strings.Join(where, ", ") + ": ")
	}
	b.WriteString(r.Message)
	for _, a := range rest {
		b.WriteString(" " + a)
	}
	line := strings.Join(strings.Fields(b.String()), " ") + "\n"
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen[line] {
		return nil
	}
	h.seen[line] = true
	if h.tty {
		line = "\r\033[K" + line
	}
	_, err := io.WriteString(h.w, line)
	return err
}

func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr{}, h.attrs...), as...)
	return &c
}

func (h *lineHandler) WithGroup(string) slog.Handler { return h }

// installLibraryLog makes log the destination of what libraries log
// through slog's and the log package's defaults: a record logged while a
// render runs becomes that app's notice (render.LibraryHandler), any
// other a line of log.
func installLibraryLog(log *slog.Logger) {
	slog.SetDefault(slog.New(render.LibraryHandler(log.Handler())))
}

// captureStderr replaces os.Stderr by a pipe whose lines go to log, and
// returns the function that closes it and waits until every line is out.
// The kustomize library writes its deprecation notices straight to
// os.Stderr, once per build: render reports those once per file and app,
// so they are dropped here; any other line a library writes there
// becomes one warning. Call it first in main: the variable is written
// once, before any goroutine reads it, so no read races with the write;
// the real stderr (ios.ErrOut, taken before) and the runtime's own crash
// output, which writes to file descriptor 2, are untouched.
func captureStderr(log *slog.Logger) (done func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	os.Stderr = w
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line != "" && !render.KustomizeStderrNotice(line) {
				log.Warn((*scrub.Set)(nil).Foreign(line)) // a library's words: what it quotes is masked
			}
		}
		io.Copy(io.Discard, r) // a line past the limit: drain, never block a writer
	}()
	return func() {
		w.Close()
		<-drained
	}, nil
}
