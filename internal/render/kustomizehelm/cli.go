package kustomizehelm

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// run parses one helm command line the way helm's own flags parse it, for
// the three commands and the flags kustomize's generator passes, and runs
// it. Anything else is an error naming what is not served: a command
// line kustomize never writes means this emulation is out of date, and a
// render must fail rather than guess.
func (c *Command) run(args []string) ([]byte, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, unsupported(args)
	}
	switch args[0] {
	case "version":
		return c.version(args)
	case "pull":
		p, err := parsePull(args)
		if err != nil {
			return nil, err
		}
		return nil, c.backend.Pull(c.ctx, p)
	case "template":
		t, err := parseTemplate(args)
		if err != nil {
			return nil, err
		}
		return c.backend.Template(c.ctx, t)
	}
	return nil, unsupported(args)
}

func unsupported(args []string) error {
	return fmt.Errorf("helm %s: not served here: kustomize's helm answers `version --short`, `pull --untar` and `template` as kustomize runs them",
		strings.Join(args, " "))
}

func flagSet(args []string) *pflag.FlagSet {
	fl := pflag.NewFlagSet("helm "+args[0], pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	return fl
}

func (c *Command) version(args []string) ([]byte, error) {
	fl := flagSet(args)
	short := fl.Bool("short", false, "")
	if err := fl.Parse(args[1:]); err != nil || !*short || fl.NArg() > 0 {
		return nil, unsupported(args)
	}
	return []byte(c.backend.Version() + "\n"), nil
}

// parsePull parses `helm pull --untar --untardir DIR [--repo URL] CHART
// [--version V] [--devel]`, with helm's rule that --devel means any
// version, pre-releases included, when no --version is given.
func parsePull(args []string) (Pull, error) {
	var p Pull
	fl := flagSet(args)
	untar := fl.Bool("untar", false, "")
	fl.StringVar(&p.UntarDir, "untardir", ".", "")
	fl.StringVar(&p.Repo, "repo", "", "")
	fl.StringVar(&p.Version, "version", "", "")
	fl.BoolVar(&p.Devel, "devel", false, "")
	if err := fl.Parse(args[1:]); err != nil {
		return p, fmt.Errorf("helm pull: %w", err)
	}
	if !*untar || fl.NArg() != 1 {
		return p, unsupported(args)
	}
	p.Chart = fl.Arg(0)
	if p.Version == "" && p.Devel {
		p.Version = ">0.0.0-0"
	}
	return p, nil
}

// parseTemplate parses `helm template` with the flags kustomize's
// AsHelmArgs writes, declared with helm's types (-f and --api-versions
// are comma-separated lists there too).
func parseTemplate(args []string) (Template, error) {
	var t Template
	fl := flagSet(args)
	fl.BoolVarP(&t.GenerateName, "generate-name", "g", false, "")
	fl.StringVar(&t.NameTemplate, "name-template", "", "")
	fl.StringVarP(&t.Namespace, "namespace", "n", "", "")
	fl.StringSliceVarP(&t.ValueFiles, "values", "f", nil, "")
	fl.StringSliceVarP(&t.APIVersions, "api-versions", "a", nil, "")
	fl.StringVar(&t.KubeVersion, "kube-version", "", "")
	fl.BoolVar(&t.IncludeCRDs, "include-crds", false, "")
	fl.BoolVar(&t.SkipTests, "skip-tests", false, "")
	fl.BoolVar(&t.NoHooks, "no-hooks", false, "")
	fl.BoolVar(&t.Debug, "debug", false, "")
	fl.BoolVar(&t.Devel, "devel", false, "")
	if err := fl.Parse(args[1:]); err != nil {
		return t, fmt.Errorf("helm template: %w", err)
	}
	if fl.NArg() == 0 {
		return t, errors.New("helm template: requires at least 1 argument, the chart")
	}
	t.Args = fl.Args()
	return t, nil
}
