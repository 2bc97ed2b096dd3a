// Package cli holds the command-line conventions both commands share:
// injected IO streams, one-line usage errors with "did you mean", enum
// flags, --color/--quiet, the version verb and flag. It lives under cmd/
// because it parses flags and prints; nothing under internal/ may.
package cli

import (
	"io"
	"os"
)

// IOStreams are a command's injected standard streams, as gh's iostreams:
// results go to Out, progress, warnings and errors to ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	OutTTY bool // stdout is a terminal: colour and tables by default
	ErrTTY bool // stderr is a terminal: progress lines
	// Secrets clean ErrOut (see Guard); the run registers the credentials
	// it learns there. nil: nothing is registered.
	Secrets *Secrets
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		OutTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr)}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Color modes of --color.
const (
	ColorAuto   = "auto"
	ColorAlways = "always"
	ColorNever  = "never"
)

// UseColor decides whether stdout gets ANSI colours: --color always or
// never wins; auto colours a terminal unless NO_COLOR is set to anything
// non-empty (no-color.org).
func UseColor(mode string, outTTY bool, getenv func(string) string) bool {
	switch mode {
	case ColorAlways:
		return true
	case ColorNever:
		return false
	}
	return outTTY && getenv("NO_COLOR") == ""
}
