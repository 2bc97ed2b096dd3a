package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/promote"
)

// parse runs a command line through the real command tree with a run
// function that only records the options, and returns them with the
// error and both streams.
func parse(args ...string) (got *options, err error, out, errOut string) {
	var o, e bytes.Buffer
	ios := &ioStreams{In: strings.NewReader(""), Out: &o, ErrOut: &e}
	root := newRootCmd(ios, func(_ context.Context, opts *options) error { got = opts; return nil })
	root.SetArgs(append([]string{}, args...))
	_, err = root.ExecuteC()
	return got, err, o.String(), e.String()
}

func TestParse(t *testing.T) {
	g := cli.Globals{Color: "auto"}
	tests := []struct {
		name string
		args string
		want options
	}{
		{"plan", "plan --from qa --to preprod", options{Globals: g, verb: "plan", from: "qa", to: "preprod", output: "text"}},
		{"plan overrides and exit code", "plan --from qa --to prod --force-path --allow-downgrade --ignore-ordering --detailed-exitcode -o json",
			options{Globals: g, verb: "plan", from: "qa", to: "prod", forcePath: true, allowDowngrade: true, ignoreOrdering: true,
				detailedExitCode: true, output: "json"}},
		{"apply all flags", "apply --from preprod --to prod --only a,b --only c --repo /r --push --remote up --branch release --allow-downgrade --skip-chart-check --output json --force-path --ignore-ordering --source-rev origin/main --push-timeout 90s",
			options{Globals: g, verb: "apply", from: "preprod", to: "prod", only: []string{"a", "b", "c"}, repo: "/r", push: true, remote: "up", branch: "release",
				allowDowngrade: true, skipChartCheck: true, output: "json", forcePath: true, ignoreOrdering: true, sourceRev: "origin/main", pushTimeout: 90 * time.Second}},
		{"plan source revision", "plan --from qa --to preprod --source-rev v1.2.0", options{Globals: g, verb: "plan", from: "qa", to: "preprod", output: "text", sourceRev: "v1.2.0"}},
		{"plan remote branch (where the gates read statuses)", "plan --from qa --to preprod --remote up --branch release",
			options{Globals: g, verb: "plan", from: "qa", to: "preprod", output: "text", remote: "up", branch: "release"}},
		{"pin interleaved", "pin --env qa a.b.imageTag=v1 --push c.d.chartVersion=1.2.3",
			options{Globals: g, verb: "pin", env: "qa", push: true, args: []string{"a.b.imageTag=v1", "c.d.chartVersion=1.2.3"}, output: "text", remote: "origin", branch: "main"}},
		{"pin merge request", "pin --env qa --merge-request x.imageTag=v2 -q --color never",
			options{Globals: cli.Globals{Color: "never", Quiet: true}, verb: "pin", env: "qa", mergeRequest: true, args: []string{"x.imageTag=v2"},
				output: "text", remote: "origin", branch: "main"}},
		{"check envs", "check --env qa --env prod -o json", options{Globals: g, verb: "check", envs: []string{"qa", "prod"}, output: "json", failOn: "error"}},
		{"check envs comma-separated", "check --env qa,prod", options{Globals: g, verb: "check", envs: []string{"qa", "prod"}, output: "text", failOn: "error"}},
		{"check rendered", "check --rendered --fail-on never", options{Globals: g, verb: "check", output: "text", rendered: true, failOn: "never"}},
		{"waves default format depends on the terminal", "waves --color always", options{Globals: cli.Globals{Color: "always"}, verb: "waves"}},
		{"waves table", "waves -o table --env prod", options{Globals: g, verb: "waves", envs: []string{"prod"}, output: "table"}},
		{"init", "init --repo x", options{Globals: g, verb: "init", repo: "x"}},
		{"gate overrides", "apply --from preprod --to prod --override-source-healthy verified --override-sync-window CAB-7",
			options{Globals: g, verb: "apply", from: "preprod", to: "prod", output: "text",
				overrides: map[string]string{"sourceHealthy": "verified", "syncWindow": "CAB-7"}}},
		{"status", "status --rev origin/main --no-gitlab -o markdown", options{Globals: g, verb: "status", rev: "origin/main", noGitLab: true, output: "markdown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err, _, _ := parse(strings.Fields(tt.args)...)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want.remote == "" && (tt.want.verb == "plan" || tt.want.verb == "apply" || tt.want.verb == "pin") {
				tt.want.remote, tt.want.branch = "origin", "main"
			}
			if tt.want.pushTimeout == 0 && (tt.want.verb == "apply" || tt.want.verb == "pin") {
				tt.want.pushTimeout = promote.DefaultPushTimeout
			}
			if diff := cmp.Diff(&tt.want, got, cmp.AllowUnexported(options{})); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// Every usage error is one line that names the problem, suggests the
// likely intent, and points at the verb's --help instead of printing the
// whole usage.
func TestUsageErrors(t *testing.T) {
	tests := []struct{ args, want string }{
		{"", "no command given: plan, apply, pin, rollback, history, reject, unreject, check, status, waves, init or version; see 'promote --help'"},
		{"deploy", `unknown command "deploy"; see 'promote --help'`},
		{"plna --from qa", `unknown command "plna" (did you mean pin or plan?); see 'promote --help'`},
		{"chek", `unknown command "chek" (did you mean check?)`},
		{"plan --to prod", "plan needs --from; see 'promote plan --help'"},
		{"plan", "plan needs --from and --to"},
		{"apply --from qa", "apply needs --to; see 'promote apply --help'"},
		{"plan --form qa --to preprod", "unknown flag --form (did you mean --from?); see 'promote plan --help'"},
		{"apply --from qa --to preprod --skip-chart-chek", "unknown flag --skip-chart-chek (did you mean --skip-chart-check?)"},
		{"plan --from qa --to preprod --push", "unknown flag --push for plan (apply, pin, reject, rollback and unreject take it); see 'promote plan --help'"},
		{"pin --env qa", "pin needs at least one KEY=VALUE; see 'promote pin --help'"},
		{"pin a=b", "pin needs --env"},
		{"pin --env qa a=b --push --merge-request", "--push and --merge-request are mutually exclusive"},
		{"check --output yaml", `invalid -o/--output "yaml": must be text or json; see 'promote check --help'`},
		{"waves -o text", `invalid -o/--output "text": must be table, markdown or json`},
		{"check --color sometimes", `invalid --color "sometimes": must be auto, always or never`},
		{"check stray", `check takes no arguments, got "stray"; see 'promote check --help'`},
		{"check --rendered --fail-on info", `--fail-on info: must be error, warning or never; see 'promote check --help'`},
		{"check --fail-on never", `--fail-on sets the threshold of --rendered: add --rendered; see 'promote check --help'`},
		{"plan --from", "--from needs a value; see 'promote plan --help'"},
		{"apply --from qa --to preprod --token abc", "unknown flag --token"},
		{"pin --env qa a.b.imageTag=v1 --source-rev HEAD", "unknown flag --source-rev for pin (apply and plan take it)"},
		{"apply --from qa --to preprod --push-timeout -1s", "--push-timeout must not be negative"},
		{"apply --from qa --to preprod --push-timeout soon", "--push-timeout"},
		{"plan -x", "unknown flag -x in -x"},
		{"help nosuch", `unknown command "nosuch"; see 'promote --help'`},
		{"completion bahs", `unknown command "bahs" (did you mean bash?); see 'promote completion --help'`},
		{"completion", "completion needs a shell: bash, zsh, fish or powershell"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got, err, out, errOut := parse(strings.Fields(tt.args)...)
			if got != nil || err == nil {
				t.Fatalf("parsed to %+v, %v; want a usage error", got, err)
			}
			var exitOut bytes.Buffer
			code := exitCode(&ioStreams{ErrOut: &exitOut}, err)
			line := exitOut.String()
			if code != 1 || !strings.HasPrefix(line, "promote: ") || strings.Count(line, "\n") != 1 || !strings.Contains(line, tt.want) {
				t.Errorf("exit %d, stderr %q; want one line containing %q", code, line, tt.want)
			}
			if !strings.Contains(line, "--help'") {
				t.Errorf("usage error %q does not point at --help", line)
			}
			if out != "" || errOut != "" {
				t.Errorf("the command tree printed by itself: stdout %q, stderr %q", out, errOut)
			}
		})
	}
}

// Each verb's --help describes every flag it takes, on stdout, exit 0,
// without running anything.
func TestVerbHelp(t *testing.T) {
	root := newRootCmd(&ioStreams{}, nil)
	verbs := 0
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		verbs++
		for _, form := range [][]string{{c.Name(), "--help"}, {c.Name(), "-h"}, {"help", c.Name()}} {
			got, err, out, errOut := parse(form...)
			if err != nil || got != nil || errOut != "" {
				t.Errorf("%v: err %v, ran %v, stderr %q", form, err, got != nil, errOut)
			}
			if !strings.HasPrefix(out, strings.Split(c.Long, "\n")[0]) || !strings.Contains(out, "Usage:\n  promote "+c.Name()) {
				t.Errorf("%v: help does not start with the verb's description and usage:\n%s", form, out)
			}
			c.Flags().VisitAll(func(f *pflagFlag) {
				if f.Hidden {
					return
				}
				if strings.TrimSpace(f.Usage) == "" {
					t.Errorf("promote %s --%s has no description", c.Name(), f.Name)
				}
				if !strings.Contains(out, "--"+f.Name) || !strings.Contains(out, firstWords(f.Usage)) {
					t.Errorf("%v: help lacks --%s and its description %q", form, f.Name, f.Usage)
				}
			})
		}
	}
	if verbs < 7 {
		t.Errorf("only %d verbs checked", verbs)
	}
}

func firstWords(s string) string {
	s = strings.ReplaceAll(s, "`", "")
	if len(s) > 30 {
		return s[:30]
	}
	return s
}

type pflagFlag = pflag.Flag
