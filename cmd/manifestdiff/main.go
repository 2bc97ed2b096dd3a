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
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/render/jsonnetproc"
	"github.com/gitops-promote/gitops-promote/internal/render/kustomizehelm"
	"github.com/gitops-promote/gitops-promote/internal/tempdir"
)

type ioStreams = cli.IOStreams

func main() {
	// Started by kustomize as its helm (helmCharts with --enable-helm):
	// answer for the run that started the build, and nothing else.
	if code, handled := kustomizehelm.Main(os.Args); handled {
		os.Exit(code)
	}
	// Started as the jsonnet evaluator of a run (see jsonnetproc).
	if code, handled := jsonnetproc.Main(os.Args); handled {
		os.Exit(code)
	}
	ios := cli.System() // the real stderr, before captureStderr replaces os.Stderr
	removeTemp, err := tempdir.Private("manifestdiff-")
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "manifestdiff: temporary directory: %v\n", err)
		os.Exit(1)
	}
	flush, err := captureStderr(newLogger(ios.ErrOut, false, ios.ErrTTY))
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "manifestdiff: %v\n", err)
		removeTemp()
		os.Exit(1)
	}
	ctx := cli.SignalContext()
	tuneGC(os.Getenv)
	stopProfiles := startProfiles(ios, os.Getenv)
	err = runArgs(ctx, os.Args[1:], ios, os.Getenv)
	stopProfiles()
	code := exitCode(ios, err)
	removeTemp()
	flush()
	os.Exit(code)
}

// tuneGC sets the collector's soft limit, unless GOMEMLIMIT says
// otherwise: when the heap nears 220 MiB it collects at the latest (a
// bigger repository makes it collect more often, never fail). See
// renderingGC for the heap growth.
func tuneGC(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(220 << 20)
	}
}

// renderingGC trades memory for fewer collections once the apps start
// rendering, unless GOGC says otherwise: twice Go's default heap growth.
// Measured on the 1000-node MR: about 10% less CPU, peak RSS unchanged.
// Discovery runs at Go's default heap growth and the report is written
// at 200 too: tuning them saved 5-10% of a one-app change's peak, under
// the bar of docs/architecture.md ("speed mechanisms must earn their keep").
func renderingGC(getenv func(string) string) func() {
	return func() {
		if getenv("GOGC") == "" {
			// collected first, so that the headroom is counted from
			// what discovery leaves and not from its last garbage
			runtime.GC()
			debug.SetGCPercent(200)
		}
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
