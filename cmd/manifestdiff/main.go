// Command manifestdiff renders every Argo CD app of a GitOps repository at
// two git revisions, offline and as Argo CD would, and diffs the results
// per Kubernetes resource. main only wires real streams and the
// environment to the command tree and maps errors to exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/render/kustomizehelm"
)

type ioStreams = cli.IOStreams

func main() {
	// Started by kustomize as its helm (helmCharts with --enable-helm):
	// answer for the run that started the build, and nothing else.
	if code, handled := kustomizehelm.Main(os.Args); handled {
		os.Exit(code)
	}
	ios := cli.System() // the real stderr, before captureStderr replaces os.Stderr
	flush, err := captureStderr(newLogger(ios.ErrOut, false, ios.ErrTTY))
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "manifestdiff: %v\n", err)
		os.Exit(1)
	}
	ctx := cli.SignalContext()
	tuneGC(os.Getenv)
	stopProfiles := startProfiles(ios, os.Getenv)
	err = runArgs(ctx, os.Args[1:], ios, os.Getenv)
	stopProfiles()
	code := exitCode(ios, err)
	flush()
	os.Exit(code)
}

// tuneGC trades memory the run has for fewer collections, unless GOGC or
// GOMEMLIMIT say otherwise: the collector runs at twice Go's default heap
// growth, and at the latest when the heap nears 220 MiB (a soft limit: a
// bigger repository makes it collect more often, never fail). Measured on
// the 1000-node MR: about 10% less CPU, peak RSS unchanged (see
// docs/benchmarks.md).
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(220 << 20)
	}
}

// runArgs parses args with the command tree and runs the diff.
func runArgs(ctx context.Context, args []string, ios *ioStreams, getenv func(string) string) error {
	return cli.Execute(ctx, args, ios, getenv, func() *cobra.Command {
		return newRootCmd(ios, func(ctx context.Context, o *options) error { return run(ctx, o, ios, getenv) })
	})
}

// exitCode: 0 success, 2 changes with --detailed-exitcode, 1 any error,
// printed as one line.
func exitCode(ios *ioStreams, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errChanged):
		return 2
	}
	fmt.Fprintf(ios.ErrOut, "manifestdiff: %s\n", cli.Line(err))
	return 1
}
