package clitest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
)

// CheckDocs parses every command line of tool shown in README.md and
// docs/*.md under root with the real command tree, so that the docs
// cannot drift from the binary: the verb exists, every flag exists on it
// and takes the value shown (enum values included), positional arguments
// are accepted, no deprecated spelling is used, and `<line> --help`
// prints that verb's help. newRoot builds a fresh tree on ios. It fails
// when fewer than minimum lines are found, so that a parser gone blind
// cannot pass.
func CheckDocs(t *testing.T, root, tool string, minimum int, newRoot func(*cli.IOStreams) *cobra.Command) {
	t.Helper()
	cmds, err := DocCommands(root, tool)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < minimum {
		t.Fatalf("found %d %s command lines in the docs, want at least %d", len(cmds), tool, minimum)
	}
	for _, c := range cmds {
		for _, args := range c.Args {
			if err := checkLine(newRoot, args); err != nil {
				t.Errorf("%s:%d: `%s`: %v", c.File, c.Line, c.Text, err)
			}
		}
	}
}

func checkLine(newRoot func(*cli.IOStreams) *cobra.Command, args []string) error {
	var out, errOut bytes.Buffer
	ios := &cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	cmd, rest, err := newRoot(ios).Find(args)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag() // as Execute does: `promote plan --help` is a line of the docs too
	if err := cmd.ParseFlags(rest); err != nil {
		return cmd.FlagErrorFunc()(cmd, err)
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return err
	}
	if w := cli.Warnings(cmd); len(w) > 0 {
		return fmt.Errorf("the docs show a deprecated spelling: %s", strings.Join(w, "; "))
	}
	help := newRoot(ios)
	help.SetArgs(append(append([]string{}, args...), "--help"))
	if _, err := help.ExecuteC(); err != nil {
		return fmt.Errorf("with --help: %w", err)
	}
	if want := "Usage:\n  " + cmd.UseLine(); !strings.Contains(out.String(), want) || errOut.Len() > 0 {
		return fmt.Errorf("with --help: stdout lacks %q (stderr %q)", want, errOut.String())
	}
	return nil
}
