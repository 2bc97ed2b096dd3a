package render

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// notices are the lines the tools would print on stderr while rendering
// one source: log records of the libraries (Helm's "warning: destination
// for x is a table", kustomize's log lines), deprecated kustomization
// fields, jsonnet's std.trace. No renderer prints: Render collects them
// here and hands each distinct one, once, to Input.Log, cleaned of the
// render's input values (a Helm coalesce warning quotes the value it
// ignores).
type notices struct {
	mu    sync.Mutex
	list  []notice
	seen  map[notice]bool
	clean func(string) string // set by a renderer that knows its inputs
}

type notice struct {
	level slog.Level
	text  string
}

type noticesKey struct{}

func withNotices(ctx context.Context, n *notices) context.Context {
	return context.WithValue(ctx, noticesKey{}, n)
}

// noticesFrom returns the notices of the render ctx belongs to; outside
// Render, a throwaway set.
func noticesFrom(ctx context.Context) *notices {
	if n, ok := ctx.Value(noticesKey{}).(*notices); ok {
		return n
	}
	return &notices{}
}

// add records one line, once; below Info it is dropped, as the tools
// print debug output only when asked.
func (n *notices) add(level slog.Level, text string) {
	text = oneLine(text)
	if level < slog.LevelInfo || text == "" {
		return
	}
	k := notice{level, text}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen[k] {
		return
	}
	if n.seen == nil {
		n.seen = map[notice]bool{}
	}
	n.seen[k] = true
	n.list = append(n.list, k)
}

// setCleaner makes every notice pass through clean before it is logged.
func (n *notices) setCleaner(clean func(string) string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.clean = clean
}

// report logs every notice to log (nil drops them), cleaned.
func (n *notices) report(ctx context.Context, log *slog.Logger) {
	if log == nil {
		return
	}
	n.mu.Lock()
	list, clean := n.list, n.clean
	n.mu.Unlock()
	for _, x := range list {
		text := x.text
		if clean != nil {
			text = clean(text)
		}
		log.Log(ctx, x.level, text)
	}
}

// libraryLevel reads the level a library wrote into a log line: the log
// package's lines all arrive at Info ("warning: ...", "[INFO] ...",
// "Warning: ..."), slog's carry theirs. A library's error during a render
// that succeeds is a warning to us. The marker is dropped from the text.
func libraryLevel(level slog.Level, msg string) (slog.Level, string) {
	lower := strings.ToLower(msg)
	for _, m := range []struct {
		prefix string
		level  slog.Level
	}{
		{"warning: ", slog.LevelWarn}, {"[warning] ", slog.LevelWarn}, {"[warn] ", slog.LevelWarn},
		{"error: ", slog.LevelWarn}, {"[error] ", slog.LevelWarn},
		{"info: ", slog.LevelInfo}, {"[info] ", slog.LevelInfo},
		{"debug: ", slog.LevelDebug}, {"[debug] ", slog.LevelDebug},
	} {
		if strings.HasPrefix(lower, m.prefix) {
			return m.level, msg[len(m.prefix):]
		}
	}
	if level > slog.LevelWarn {
		level = slog.LevelWarn
	}
	return level, msg
}
