package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name string
		args string
		want options
	}{
		{"plan", "plan --from qa --to preprod", options{verb: "plan", from: "qa", to: "preprod", output: "text", remote: "origin", branch: "main"}},
		{"apply all flags", "apply --from preprod --to prod --only a,b --repo /r --push --remote up --branch release --allow-downgrade --skip-chart-check --output json --force-path",
			options{verb: "apply", from: "preprod", to: "prod", only: []string{"a", "b"}, repo: "/r", push: true, remote: "up", branch: "release",
				allowDowngrade: true, skipChartCheck: true, output: "json", forcePath: true}},
		{"pin interleaved", "pin --env qa a.b.imageTag=v1 --push c.d.chartVersion=1.2.3",
			options{verb: "pin", env: "qa", push: true, args: []string{"a.b.imageTag=v1", "c.d.chartVersion=1.2.3"}, output: "text", remote: "origin", branch: "main"}},
		{"check envs", "check --env qa --env prod --output json", options{verb: "check", envs: []string{"qa", "prod"}, output: "json", remote: "origin", branch: "main"}},
		{"init", "init --repo x", options{verb: "init", repo: "x", output: "text", remote: "origin", branch: "main"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseArgs(strings.Fields(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, got, cmp.AllowUnexported(options{})); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseArgsErrors(t *testing.T) {
	tests := []struct{ args, want string }{
		{"", "no command given"},
		{"deploy", `unknown command "deploy"`},
		{"plan --to prod", "plan needs --from"},
		{"apply --from qa", "apply needs --to"},
		{"plan --from qa --to preprod --push", "flag provided but not defined: -push"},
		{"pin --env qa", "pin needs at least one KEY=VALUE"},
		{"pin a=b", "pin needs --env"},
		{"check --output yaml", `--output must be text or json, not "yaml"`},
		{"check stray", `check takes no arguments, got "stray"`},
		{"apply --from qa --to preprod --token abc", "flag provided but not defined: -token"},
	}
	for _, tt := range tests {
		_, err := parseArgs(strings.Fields(tt.args))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, errUsage) {
			t.Errorf("parseArgs(%q) = %v, want usage error containing %q", tt.args, err, tt.want)
		}
	}
}

func TestHelpFlagPrintsUsage(t *testing.T) {
	for _, args := range []string{"apply --help", "pin -h", "help", "--help"} {
		o, err := parseArgs(strings.Fields(args))
		if err != nil || o.verb != "help" && o.verb != "--help" {
			t.Errorf("parseArgs(%q) = %+v, %v; want help", args, o, err)
		}
	}
}
