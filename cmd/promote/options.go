package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// errUsage marks bad command-line input; main prints usage with it.
var errUsage = errors.New("usage")

// options is every flag of every verb; each verb reads its own.
type options struct {
	verb           string
	repo           string
	from, to, env  string
	envs           []string
	only           []string
	output         string
	push           bool
	remote, branch string
	allowDowngrade bool
	skipChartCheck bool
	forcePath      bool
	ignoreOrdering bool
	mergeRequest   bool
	args           []string // pin's KEY=VALUE
}

const usageText = `usage:
  promote plan  --from SRC --to DST [--only C1,C2] [--repo DIR] [--output text|json] [--force-path]
                [--ignore-ordering]
  promote apply --from SRC --to DST [--only ...] [--repo DIR] [--push | --merge-request] [--remote origin] [--branch main]
                [--allow-downgrade] [--skip-chart-check] [--force-path] [--ignore-ordering]
                [--output text|json]
  promote pin   --env ENV KEY=VALUE... [--repo DIR] [--push | --merge-request] [--remote origin] [--branch main]
                [--allow-downgrade] [--skip-chart-check] [--output text|json]
  promote check [--env ENV]... [--repo DIR] [--output text|json]
  promote waves [--env ENV]... [--repo DIR] [--output markdown|json]
  promote init  [--repo DIR]

plan and apply refuse a target environment with ordering findings (see
check); --ignore-ordering overrides that and says so in the commit.

Tokens come from the environment only: GIT_TOKEN or GITLAB_TOKEN (HTTPS push),
HELM_REPO_USERNAME / HELM_REPO_PASSWORD (chart repository look-ups).
--merge-request also needs CI_API_V4_URL, CI_PROJECT_ID and GITLAB_TOKEN (api scope).
`

// parseArgs parses a verb and its flags; flags and KEY=VALUE arguments may
// be interleaved, as CI scripts write them.
func parseArgs(args []string) (*options, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no command given: %w", errUsage)
	}
	o := &options{verb: args[0], remote: "origin", branch: "main"}
	fs := flag.NewFlagSet("promote "+o.verb, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.repo, "repo", "", "repository work tree (default: the enclosing one)")
	fs.StringVar(&o.output, "output", "", "text or json (waves: markdown or json)")
	var only string
	switch o.verb {
	case "plan", "apply":
		fs.StringVar(&o.from, "from", "", "source environment")
		fs.StringVar(&o.to, "to", "", "target environment")
		fs.StringVar(&only, "only", "", "comma-separated components")
		fs.BoolVar(&o.forcePath, "force-path", false, "allow any source environment")
		fs.BoolVar(&o.ignoreOrdering, "ignore-ordering", false, "promote despite ordering findings in the target")
		if o.verb == "apply" {
			commitFlags(fs, o)
		}
	case "pin":
		fs.StringVar(&o.env, "env", "", "environment to pin")
		commitFlags(fs, o)
	case "check", "waves":
		fs.Func("env", "environment to check (repeatable; default all)", func(s string) error {
			o.envs = append(o.envs, s)
			return nil
		})
	case "init":
	case "help", "-h", "--help":
		return o, nil
	default:
		return nil, fmt.Errorf("unknown command %q: %w", o.verb, errUsage)
	}
	rest := args[1:]
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return &options{verb: "help"}, nil
			}
			return nil, fmt.Errorf("%s: %v: %w", o.verb, err, errUsage)
		}
		if fs.NArg() == 0 {
			break
		}
		o.args = append(o.args, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	o.only = splitList(only)
	return o, o.validate()
}

func commitFlags(fs *flag.FlagSet, o *options) {
	fs.BoolVar(&o.push, "push", false, "push the commit")
	fs.BoolVar(&o.mergeRequest, "merge-request", false, "push to a promotion branch and open or update its GitLab merge request")
	fs.StringVar(&o.remote, "remote", "origin", "remote to push to")
	fs.StringVar(&o.branch, "branch", "main", "remote branch to push to")
	fs.BoolVar(&o.allowDowngrade, "allow-downgrade", false, "allow chartVersion to go down")
	fs.BoolVar(&o.skipChartCheck, "skip-chart-check", false, "do not look chart versions up in their repositories")
}

func (o *options) validate() error {
	formats := []string{"text", "json"}
	if o.verb == "waves" {
		formats = []string{"markdown", "json"}
	}
	if o.output == "" {
		o.output = formats[0]
	}
	if !slices.Contains(formats, o.output) {
		return fmt.Errorf("--output must be %s, not %q: %w", strings.Join(formats, " or "), o.output, errUsage)
	}
	if o.push && o.mergeRequest {
		return fmt.Errorf("--push and --merge-request are mutually exclusive: %w", errUsage)
	}
	need := func(name, v string) error {
		if v == "" {
			return fmt.Errorf("%s needs --%s: %w", o.verb, name, errUsage)
		}
		return nil
	}
	switch o.verb {
	case "plan", "apply":
		if err := need("from", o.from); err != nil {
			return err
		}
		if err := need("to", o.to); err != nil {
			return err
		}
	case "pin":
		if err := need("env", o.env); err != nil {
			return err
		}
		if len(o.args) == 0 {
			return fmt.Errorf("pin needs at least one KEY=VALUE: %w", errUsage)
		}
		return nil
	}
	if len(o.args) > 0 {
		return fmt.Errorf("%s takes no arguments, got %q: %w", o.verb, strings.Join(o.args, " "), errUsage)
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
