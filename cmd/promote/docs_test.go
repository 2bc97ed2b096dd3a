package main

import (
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
)

// Every `promote ...` line in README.md and docs/*.md parses with the
// real command tree: verbs, flags and values exist as shown.
func TestDocsCommandLines(t *testing.T) {
	clitest.CheckDocs(t, "../..", "promote", 20, func(ios *cli.IOStreams) *cobra.Command {
		return newRootCmd(ios, func(context.Context, *options) error {
			t.Fatal("a docs check ran a command")
			return nil
		})
	})
}
