//go:build mangen

package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// ManCmd is the hidden `man DIR` verb of binaries built with -tags mangen
// (`make man`): it writes a man page per command with cobra/doc. Release
// binaries carry neither it nor go-md2man.
func ManCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write the man pages to DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			// SOURCE_DATE_EPOCH, when set, makes the pages reproducible
			date := time.Now()
			if epoch := os.Getenv("SOURCE_DATE_EPOCH"); epoch != "" {
				var sec int64
				if _, err := fmt.Sscan(epoch, &sec); err == nil {
					date = time.Unix(sec, 0).UTC()
				}
			}
			header := &doc.GenManHeader{Section: "1", Source: "gitops-promote", Manual: "gitops-promote manual", Date: &date}
			root := cmd.Root()
			cmd.Parent().RemoveCommand(cmd)
			MarkdownForMan(root) // go-md2man reads help text as markdown
			return doc.GenManTree(root, header, args[0])
		},
	}
}
