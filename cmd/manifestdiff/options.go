package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

var errUsage = errors.New("usage")

type options struct {
	repo, base, head string
	envs             []string
	format, output   string
	detailedExitCode bool
	chartsDir        string
	cacheDir         string
	help             bool
	post             bool
	pageLimit        int // note page size for --post; 0 = GitLab's limit (tests shrink it)
}

const usageText = `usage:
  manifestdiff [--repo DIR] [--base REV] [--head REV] [--env ENV]...
               [--format markdown|diff|json] [--output FILE] [--detailed-exitcode]
               [--charts-dir DIR] [--cache-dir DIR] [--post]

--base defaults to $CI_MERGE_REQUEST_DIFF_BASE_SHA, else the merge-base of
--head and origin/main; --head defaults to HEAD. Exit 0 on success, 1 on any
error (including an app that failed to render), 2 with --detailed-exitcode
when something changed. Chart repository credentials come from
HELM_REPO_USERNAME / HELM_REPO_PASSWORD. --post edits (or creates) one note
on the merge request, found again by a hidden marker, with CI_API_V4_URL,
CI_PROJECT_ID, CI_MERGE_REQUEST_IID and GITLAB_TOKEN (api scope) from the
environment.
`

func parseArgs(args []string) (*options, error) {
	o := &options{format: "diff"}
	fs := flag.NewFlagSet("manifestdiff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.repo, "repo", "", "repository work tree (default: the enclosing one)")
	fs.StringVar(&o.base, "base", "", "base revision")
	fs.StringVar(&o.head, "head", "", "head revision (default HEAD)")
	fs.Func("env", "environment (repeatable; default all)", func(s string) error {
		o.envs = append(o.envs, s)
		return nil
	})
	fs.StringVar(&o.format, "format", "diff", "markdown, diff or json")
	fs.StringVar(&o.output, "output", "", "write the report to FILE instead of stdout")
	fs.BoolVar(&o.detailedExitCode, "detailed-exitcode", false, "exit 2 when something changed")
	fs.StringVar(&o.chartsDir, "charts-dir", "", "read packaged charts from DIR only (offline)")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "chart cache (default: the user cache dir)")
	fs.BoolVar(&o.help, "help", false, "show usage")
	fs.BoolVar(&o.post, "post", false, "upsert the markdown report as the merge request note (GitLab CI)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			o.help = true
			return o, nil
		}
		return nil, fmt.Errorf("%v: %w", err, errUsage)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q: %w", strings.Join(fs.Args(), " "), errUsage)
	}
	switch o.format {
	case "markdown", "diff", "json":
	default:
		return nil, fmt.Errorf("--format must be markdown, diff or json, not %q: %w", o.format, errUsage)
	}
	return o, nil
}
