// Command promote plans, applies, pins and checks version promotions in an
// Argo CD + Helm GitOps repository. main only wires real streams and the
// environment to the command tree and maps errors to exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/gates"
)

// ioStreams are the command's injected standard streams.
type ioStreams = cli.IOStreams

func main() {
	ctx := cli.SignalContext()
	ios := cli.System()
	os.Exit(exitCode(ios, runArgs(ctx, os.Args[1:], ios, os.Getenv)))
}

// runArgs parses args with the command tree and runs the verb.
func runArgs(ctx context.Context, args []string, ios *ioStreams, getenv func(string) string) error {
	return cli.Execute(ctx, args, ios, getenv, func() *cobra.Command {
		return newRootCmd(ios, func(ctx context.Context, o *options) error { return run(ctx, o, ios, getenv) })
	})
}

// Exit codes (docs/promote.md): 2 and 3 let a CI job tell "changes" and
// "a gate refused" from a failure.
const (
	exitError       = 1 // any error, or check found problems
	exitChanges     = 2 // plan --detailed-exitcode: there is something to promote
	exitGateRefused = 3 // plan or apply: a gate of .promote.yaml refused (or cannot be evaluated)
)

// exitCode prints err as one line with a hint and returns the exit code:
// 0 on success (including "already up to date"), 2 for plan
// --detailed-exitcode with changes, 3 when a gate refused, 1 on any other
// error.
func exitCode(ios *ioStreams, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errChanges):
		return exitChanges
	case errors.Is(err, errFindings):
		return exitError // the findings are the output
	}
	fmt.Fprintf(ios.ErrOut, "promote: %s\n", message(err))
	if errors.Is(err, gates.ErrRefused) {
		return exitGateRefused
	}
	return exitError
}
