package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
)

// A release build says what it is, in --version, the version verb (text
// and JSON) and the stamps `go version -m` reads.
func TestReleaseVersion(t *testing.T) {
	bin := clitest.BuildRelease(t, "../..", "./cmd/promote")
	clitest.CheckVersion(t, bin, "promote", false)
}

// A plain build still names its Go version, and says it links no Helm.
func TestDevelopmentVersion(t *testing.T) {
	_, err, out, errOut := parse("--version")
	if err != nil || errOut != "" || !strings.HasPrefix(out, "promote ") || !strings.Contains(out, "\ngo:       go1.") ||
		!strings.Contains(out, "\nhelm SDK: none (promote renders no charts and links no Helm)\n") {
		t.Errorf("--version: %v, stdout %q, stderr %q", err, out, errOut)
	}
}

// `promote completion bash`, sourced by a real bash with bash-completion,
// completes verbs, flags, enum values and the repository's environments
// and components (read from .promote.yaml).
func TestBashCompletion(t *testing.T) {
	f := newFleet(t)
	got := clitest.BashComplete(t, promoteBinary(t), f.Dir,
		"promote pl",
		"promote plan --fr",
		"promote plan -o ",
		"promote waves --output ",
		"promote check --color a",
		"promote plan --from ",
		"promote apply --from qa --to p",
		"promote apply --only ",
		"promote pin --env ",
		"promote completion ",
	)
	want := [][]string{
		{"plan"},
		{"--from"},
		{"text", "json"},
		{"table", "markdown", "json"},
		{"auto", "always"},
		{"qa", "preprod", "prod"},
		{"preprod", "prod"},
		{"ledger-node.api", "ledger-node.worker", "gateway"},
		{"qa", "preprod", "prod"},
		{"bash", "fish", "powershell", "zsh"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("completions (-want +got):\n%s", diff)
	}
}

// Every shell's script is generated, on stdout.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		_, err, out, errOut := parse("completion", shell)
		if err != nil || errOut != "" || !strings.Contains(out, "promote") || len(out) < 1000 {
			t.Errorf("completion %s: %v, %d bytes, stderr %q", shell, err, len(out), errOut)
		}
	}
	_, err, _, _ := parse("completion", "tcsh")
	if err == nil || !slices.Contains(strings.Fields(err.Error()), `"tcsh":`) || !strings.Contains(err.Error(), "bash, zsh, fish and powershell") {
		t.Errorf("completion tcsh: %v", err)
	}
}

// `make man` writes a page per verb, with the verb's flags described, and
// says what --help says: go-md2man reads the help as markdown, where
// "<app>" was an HTML tag and vanished.
func TestManPages(t *testing.T) {
	dir := clitest.ManPages(t, "../..", "./cmd/promote")
	clitest.CheckManPages(t, dir, func(ios *cli.IOStreams) *cobra.Command {
		return newRootCmd(ios, func(context.Context, *options) error {
			t.Fatal("a man page check ran a command")
			return nil
		})
	}, map[string][]string{
		"promote-status": {"argocd/<app> commit statuses"},
		"promote-init":   {"versions/*.yaml"},
	})
	root := newRootCmd(&ioStreams{}, nil)
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() || c.Name() == "completion" {
			continue
		}
		page, err := os.ReadFile(filepath.Join(dir, "promote-"+c.Name()+".1"))
		if err != nil {
			t.Errorf("no man page for %s: %v", c.Name(), err)
			continue
		}
		if !strings.Contains(string(page), `.TH "PROMOTE-`+strings.ToUpper(c.Name())+`" "1" "Sep 2026"`) {
			t.Errorf("promote-%s.1 header:\n%.300s", c.Name(), page)
		}
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if !strings.Contains(string(page), `\fB--`+f.Name+`\fP`) {
				t.Errorf("promote-%s.1 lacks --%s", c.Name(), f.Name)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "promote.1")); err != nil {
		t.Error(err)
	}
}
