package main

import (
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
)

// Every `manifestdiff ...` line in README.md and docs/*.md parses with
// the real command tree: flags and values exist as shown.
func TestDocsCommandLines(t *testing.T) {
	clitest.CheckDocs(t, "../..", "manifestdiff", 5, func(ios *cli.IOStreams) *cobra.Command {
		return newRootCmd(ios, func(context.Context, *options) error {
			t.Fatal("a docs check ran a command")
			return nil
		})
	})
}

// Every flag the docs show in a code span, in prose or in a table, is a
// flag of promote or manifestdiff (or of the program named), and one that
// takes no value is not shown with one.
func TestDocsFlagSpans(t *testing.T) {
	if testing.Short() {
		t.Skip("builds promote; run without -short")
	}
	flags := clitest.TreeFlags(newRootCmd(&cli.IOStreams{}, nil))
	for name, value := range clitest.HelpFlags(t, clitest.BuildRelease(t, "../..", "./cmd/promote")) {
		flags[name] = flags[name] || value
	}
	clitest.CheckDocFlags(t, "../..", flags, map[string]string{
		"--set": "helm", "--set-file": "helm", "--set-string": "helm", "--kube-version": "helm", "--skip-tests": "helm",
		"--enable-helm": "kustomize", "--enable-alpha-plugins": "kustomize", "--enable-managedby-label": "kustomize",
		"--load-restrictor": "kustomize", "--reorder": "kustomize", "--helm-command": "kustomize",
		"--helm-kube-version": "kustomize", "--helm-api-versions": "kustomize", "--generate-name": "helm",
		"-update": "go test (golden files)", "-fuzzminimizetime": "go test", "-ldflags": "go build", "-trimpath": "go build",
		"--scenario": "scripts/bench.py", "--insecure-skip-tls-verify": "helm", "--username": "helm", "--password": "helm",
		"--pass-credentials": "helm",
	})
}

// README.md's Environment table lists every variable manifestdiff reads,
// and manifestdiff reads every variable the table says it uses.
func TestDocsEnvironment(t *testing.T) {
	clitest.CheckEnvDocs(t, "../..", "./cmd/manifestdiff", "manifestdiff", map[string]string{
		"GIT_CONFIG_GLOBAL":   "where git's config is, found as git finds it",
		"GIT_CONFIG_SYSTEM":   "as GIT_CONFIG_GLOBAL",
		"GIT_CONFIG_NOSYSTEM": "as GIT_CONFIG_GLOBAL",
		"XDG_CONFIG_HOME":     "as GIT_CONFIG_GLOBAL",
		"ARGOCD_APP_*":        "Argo CD's build environment, which internal/argo sets for a render; not read from ours",
	}, map[string]string{"KUBECONFIG": "client-go's kubeconfig loading rules (internal/kube), for --live",
		"SSL_CERT_FILE": "crypto/x509's system roots on Linux", "SSL_CERT_DIR": "crypto/x509's system roots on Linux"})
}
