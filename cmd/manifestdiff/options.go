package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
)

// formats of -o/--output, the first the default.
var formats = []string{"diff", "markdown", "json", "html"}

// failOnValues are --fail-on's: the least severity of a new
// sync-readiness finding that fails the run, or never.
var failOnValues = []string{"error", "warning", "never"}

type options struct {
	cli.Globals
	repo, base, head string
	envs             []string
	output           string // report format
	outputFile       string // write the report there instead of stdout
	legacyOutputFile string // the old --output FILE
	detailedExitCode bool
	failOn           string // --fail-on: error, warning or never
	all              bool   // --all: render and check every app's head
	chartsDir        string
	cacheDir         string
	post             bool
	reportURL        string // --report-url: where the HTML report is published, for the note's links
	pageLimit        int    // note page size for --post; 0 = GitLab's limit (tests shrink it)
	color            bool   // resolved from --color, the terminal and NO_COLOR
	live             bool   // compare the config's live envs with their cluster
	kubeconfig       string
	kubeContext      string
	shard            string   // --shard INDEX/TOTAL
	merge            []string // the merge verb's shard reports
}

// outputValue is -o/--output FORMAT. Before --output-file existed,
// --output named the report file; a value that reads as a path (it has a
// dot or a slash, as no format has) is still taken as the file, with a
// deprecation warning, so pipelines written for the old flags keep
// working. Anything else must be a format: a typo never becomes a file.
type outputValue struct{ o *options }

func (v outputValue) String() string { return v.o.output }
func (v outputValue) Type() string   { return strings.Join(formats, "|") }

func (v outputValue) Deprecation() string {
	if v.o.legacyOutputFile == "" {
		return ""
	}
	return "--output FILE is deprecated: use --output-file FILE (--output now takes the format, as in kubectl and helm)"
}

func (v outputValue) Set(s string) error {
	switch {
	case slices.Contains(formats, s):
		v.o.output = s
	case strings.ContainsAny(s, "./"):
		v.o.legacyOutputFile = s
	default:
		return fmt.Errorf("must be %s or %s (to write the report to a file, use --output-file FILE)",
			strings.Join(formats[:len(formats)-1], ", "), formats[len(formats)-1])
	}
	return nil
}

func (o *options) validate(cmd *cobra.Command) error {
	if !o.live && (o.kubeconfig != "" || o.kubeContext != "") {
		return cli.Usagef(cmd, "--kubeconfig and --context select the cluster of --live: add --live")
	}
	if o.reportURL != "" {
		if err := checkReportURL(o.reportURL); err != nil {
			return cli.Usagef(cmd, "--report-url %s: %v", o.reportURL, err)
		}
	}
	if !slices.Contains(failOnValues, o.failOn) {
		return cli.Usagef(cmd, "--fail-on %s: must be %s", o.failOn, strings.Join(failOnValues, ", "))
	}
	if o.shard != "" {
		if _, err := parseShard(o.shard); err != nil {
			return cli.Usagef(cmd, "--shard %s: %v", o.shard, err)
		}
	}
	if o.legacyOutputFile == "" {
		return nil
	}
	if cmd.Flags().Changed("output-file") {
		return cli.Usagef(cmd, "--output %s names a file, and --output-file is given too: use --output-file only", o.legacyOutputFile)
	}
	o.outputFile = o.legacyOutputFile
	return nil
}
