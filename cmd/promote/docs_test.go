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

// README.md's Environment table lists every variable promote reads, and
// promote reads every variable the table says it uses.
func TestDocsEnvironment(t *testing.T) {
	clitest.CheckEnvDocs(t, "../..", "./cmd/promote", "promote", map[string]string{
		"GIT_CONFIG_GLOBAL":    "where git's config is, found as git finds it (the identity row: otherwise git config)",
		"GIT_CONFIG_SYSTEM":    "as GIT_CONFIG_GLOBAL",
		"GIT_CONFIG_NOSYSTEM":  "as GIT_CONFIG_GLOBAL",
		"XDG_CONFIG_HOME":      "as GIT_CONFIG_GLOBAL",
		"CI_MERGE_REQUEST_IID": "named in the hints shared with manifestdiff --post (cmd/internal/cli/env.go), not read by promote",
		"ARGOCD_APP_*":         "Argo CD's build environment, which internal/argo sets for a render; not read from ours",
	}, map[string]string{"SSL_CERT_FILE": "crypto/x509's system roots on Linux", "SSL_CERT_DIR": "crypto/x509's system roots on Linux"})
}
