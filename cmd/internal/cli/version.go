package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/internal/buildinfo"
)

// VersionFlag defines --version on root (no shorthand: -v means verbose
// to kubectl users). The root's run prints WriteVersion when it is set.
func VersionFlag(root *cobra.Command, p *bool) {
	root.Flags().BoolVar(p, "version", false, "print the version, commit, build date, Go version and the Helm SDKs linked, and exit")
}

// VersionCmd is the `version` verb: the same as --version, or JSON.
func VersionCmd(ios *IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date, Go version and the Helm SDKs linked",
		Long: `Print which build is running: the module version, the commit it was
built from, the build date (release builds; otherwise the commit time),
the Go version and platform, and each Helm SDK the binary links with the
Argo CD releases it renders for (manifestdiff: Helm 4 for Argo CD 3.5 and
later, Helm 3 before; promote links none). The same is in the binary for
` + "`go version -m`" + ` to read.`,
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
		enc.SetEscapeHTML(false) // ">= 3.5", not "\u003e= 3.5"
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
	_, err := fmt.Fprintf(w, "%s %s\ncommit:   %s\nbuilt:    %s\ngo:       %s %s\nhelm SDK: %s\n",
		tool, info.Version, commit, date, info.GoVersion, info.Platform, helmLine(tool, info.Helm))
	return err
}

// helmLine names each linked Helm SDK with the Argo CD releases it
// renders for, newest first: "v4.3.1 (Argo CD >= 3.5), v3.22.0 (older)".
// A binary without Helm says so rather than print a version it does not
// contain.
func helmLine(tool string, sdks []buildinfo.HelmSDK) string {
	if len(sdks) == 0 {
		return "none (" + tool + " renders no charts and links no Helm)"
	}
	parts := make([]string, len(sdks))
	for i, s := range sdks {
		argo := "Argo CD " + s.ArgoCD
		if i > 0 && strings.HasPrefix(s.ArgoCD, "<") {
			argo = "older"
		}
		parts[i] = s.Version + " (" + argo + ")"
	}
	return strings.Join(parts, ", ")
}
