package main

import (
	"regexp"
	"sync"

	"github.com/spf13/cobra"
)

// Help's examples name the components of the bundled example fleet (the
// repository make demo leaves to try them in). Run inside a repository
// with a .promote.yaml of its own, help names that repository's first
// components instead, so an example can be pasted as it is.
// (Compiled on first use: promote compiles nothing at init.)
var exampleComponents = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{regexp.MustCompile(`\bledger-node\.api\b`), regexp.MustCompile(`\bgateway\b`)}
})

// localizedHelp wraps a help function: the examples and long text of the
// command asked about name the components of the repository at hand.
func localizedHelp(help func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(c *cobra.Command, args []string) {
		o := &options{}
		if f := c.Flags().Lookup("repo"); f != nil {
			o.repo = f.Value.String()
		}
		if cfg := completionConfig(o); cfg != nil && len(cfg.Components) > 0 {
			for i, re := range exampleComponents() {
				key := cfg.Components[min(i, len(cfg.Components)-1)].Key
				c.Example = re.ReplaceAllLiteralString(c.Example, key)
				c.Long = re.ReplaceAllLiteralString(c.Long, key)
			}
		}
		help(c, args)
	}
}
