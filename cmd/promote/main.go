// Command promote plans, applies, pins and checks version promotions in an
// Argo CD + Helm GitOps repository. main only wires real streams and the
// environment to run and maps errors to exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	// A promotion allocates a few MB and exits within tens of milliseconds:
	// collecting garbage only delays it (~25%). The memory limit turns
	// collection back on for a repository large enough to need it.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1 << 30)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ios := &ioStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, Color: isTerminal(os.Stdout)}
	os.Exit(exitCode(ios, runArgs(ctx, os.Args[1:], ios, os.Getenv)))
}

func runArgs(ctx context.Context, args []string, ios *ioStreams, getenv func(string) string) error {
	o, err := parseArgs(args)
	if err != nil {
		return err
	}
	return run(ctx, o, ios, getenv)
}

// exitCode prints err as one line with a hint and returns the exit code:
// 0 on success (including "already up to date"), 1 on any error.
func exitCode(ios *ioStreams, err error) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, errFindings) {
		return 1
	}
	fmt.Fprintf(ios.ErrOut, "promote: %s\n", message(err))
	if errors.Is(err, errUsage) {
		fmt.Fprint(ios.ErrOut, usageText)
	}
	return 1
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("NO_COLOR") == ""
}
