package main

import (
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
)

// `make man` writes pages that say what --help says: go-md2man reads the
// help as markdown, where "<chart>" was an HTML tag and vanished.
func TestManPages(t *testing.T) {
	dir := clitest.ManPages(t, "../..", "./cmd/manifestdiff")
	clitest.CheckManPages(t, dir, func(ios *cli.IOStreams) *cobra.Command {
		return newRootCmd(ios, func(context.Context, *options) error {
			t.Fatal("a man page check ran a command")
			return nil
		})
	}, map[string][]string{
		"manifestdiff": {"(<chart>-<version>.tgz) from DIR only"},
	})
}
