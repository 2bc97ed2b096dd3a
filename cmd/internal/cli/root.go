package cli

import (
	"context"
	"fmt"
	"github.com/gitops-promote/gitops-promote/internal/suggest"
	"strings"

	"github.com/spf13/cobra"
)

// Configure applies the shared conventions to a finished command tree:
// errors come back to main, which prints them as one line (cobra would
// print the whole usage); flag errors and unknown verbs become usage
// errors with "did you mean"; help and completion write to ios.
func Configure(root *cobra.Command, ios *IOStreams) {
	root.SilenceErrors, root.SilenceUsage = true, true
	root.DisableSuggestions = true // ours fit on the error's one line
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(flagError)
	root.SetHelpCommand(helpCmd())
	// cobra adds these at Execute; made here so that they follow the rules
	// below: `completion tcsh` or `help nosuch` are usage errors, not help.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = NoArgs
			c.RunE = func(cmd *cobra.Command, _ []string) error {
				return Usagef(cmd, "completion needs a shell: bash, zsh, fish or powershell")
			}
		}
	}
	walk(root, func(c *cobra.Command) {
		c.Flags().SortFlags = false // help lists flags in the order each verb defines them
		if c.Args == nil {
			c.Args = NoArgs
		}
	})
}

func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walk(sub, f)
	}
}

// helpCmd is `help [verb]`: the verb's help, and a usage error with
// suggestions for a verb that does not exist (cobra prints the usage and
// exits 0).
func helpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return UnknownVerb(c.Root(), args[len(args)-len(rest)])
			}
			return cmd.Help()
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			var verbs []string
			for _, cmd := range c.Root().Commands() {
				if cmd.IsAvailableCommand() {
					verbs = append(verbs, cmd.Name())
				}
			}
			return verbs, cobra.ShellCompDirectiveNoFileComp
		},
	}
}

// NoArgs refuses positional arguments; on a command with verbs, an
// argument is a mistyped verb and gets suggestions.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasAvailableSubCommands() {
		return UnknownVerb(cmd, args[0])
	}
	return Usagef(cmd, "%s takes no arguments, got %q", cmd.Name(), strings.Join(args, " "))
}

// UnknownVerb is the usage error for a verb cmd does not have.
func UnknownVerb(cmd *cobra.Command, verb string) error {
	if shells := []string{"bash", "zsh", "fish", "powershell"}; cmd.Name() == "completion" && len(suggest.Close(verb, shells)) == 0 {
		// a shell nobody supports is not a typo of the nearest names
		return Usagef(cmd, "no completion for %q: the shells are bash, zsh, fish and powershell", verb)
	}
	msg := fmt.Sprintf("unknown command %q", verb)
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(verb); len(s) > 0 {
		msg += suggest.Format("", s)
	}
	return &UsageError{Path: cmd.CommandPath(), Err: fmt.Errorf("%s", msg)}
}

// Execute runs a command's tree on args: stderr is guarded first (no
// credential of getenv's reaches it, from any depth, the run's own error
// included), then newRoot builds the tree on the guarded streams. nil
// args run with none: cobra would read os.Args.
func Execute(ctx context.Context, args []string, ios *IOStreams, getenv func(string) string, newRoot func() *cobra.Command) error {
	Guard(ios, getenv)
	root := newRoot()
	if args == nil {
		args = []string{}
	}
	root.SetArgs(args)
	_, err := root.ExecuteContextC(ctx)
	return err
}
