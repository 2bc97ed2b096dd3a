// Command manifestdiff renders every Argo CD app of a GitOps repository at
// two git revisions, offline and as Argo CD would, and diffs the results
// per Kubernetes resource. main only wires real streams and the
// environment to run and maps errors to exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Libraries (kustomize's deprecation notices) warn through the standard
	// logger: keep them to one line each on stderr, marked as warnings.
	log.SetFlags(0)
	log.SetPrefix("manifestdiff: warning: ")
	ios := &ioStreams{Out: os.Stdout, ErrOut: os.Stderr, Color: isTerminal(os.Stdout), Progress: isTerminal(os.Stderr)}
	os.Exit(exitCode(ios, runArgs(ctx, os.Args[1:], ios, os.Getenv)))
}

func runArgs(ctx context.Context, args []string, ios *ioStreams, getenv func(string) string) error {
	o, err := parseArgs(args)
	if err != nil {
		return err
	}
	return run(ctx, o, ios, getenv)
}

// exitCode: 0 success, 2 changes with --detailed-exitcode, 1 any error.
func exitCode(ios *ioStreams, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errChanged):
		return 2
	}
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	fmt.Fprintf(ios.ErrOut, "manifestdiff: %s\n", strings.TrimSuffix(msg, ": "+errUsage.Error()))
	if errors.Is(err, errUsage) {
		fmt.Fprint(ios.ErrOut, usageText)
	}
	return 1
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("NO_COLOR") == ""
}
