package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/internal/buildinfo"
)

// VersionFlag defines --version on root (no shorthand: -v means verbose
// to kubectl users). The root's run prints WriteVersion when it is set.
func VersionFlag(root *cobra.Command, p *bool) {
	root.Flags().BoolVar(p, "version", false, "print the version, commit, build date, Go and Helm SDK versions, and exit")
}

// VersionCmd is the `version` verb: the same as --version, or JSON.
func VersionCmd(ios *IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date, Go and Helm SDK versions",
		Long: `Print which build is running: the module version, the commit it was
built from, the build date (release builds; otherwise the commit time),
the Go version and platform, and the Helm SDK version of this release.
The same is in the binary for ` + "`go version -m`" + ` to read.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return WriteVersion(ios.Out, cmd.Root().Name(), output)
		},
	}
	OutputFlag(cmd, &output, "text", "text", "json")
	return cmd
}

// WriteVersion prints the build information of tool as text or JSON.
func WriteVersion(w io.Writer, tool, format string) error {
	info := buildinfo.Get()
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Tool string `json:"tool"`
			buildinfo.Info
		}{tool, info})
	}
	commit := info.Commit
	switch {
	case commit == "":
		commit = "unknown"
	case info.Modified:
		commit += " (modified)"
	}
	date := info.Date
	switch info.DateKind {
	case "commit":
		date += " (commit time)"
	case "unknown":
		date = "unknown"
	}
	helm := info.HelmSDK
	if !info.HelmInBin {
		helm += " (the SDK manifestdiff renders with; " + tool + " does not link Helm)"
	}
	_, err := fmt.Fprintf(w, "%s %s\ncommit:   %s\nbuilt:    %s\ngo:       %s %s\nhelm SDK: %s\n",
		tool, info.Version, commit, date, info.GoVersion, info.Platform, helm)
	return err
}
