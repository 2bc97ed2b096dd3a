package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/manifestdiff"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    *options
		wantErr string // substring; "" means success
	}{
		{name: "defaults", args: nil, want: &options{format: "diff"}},
		{name: "every flag", args: []string{"--repo", "r", "--base", "b", "--head", "h", "--env", "qa", "--env", "prod",
			"--format", "json", "--output", "o.json", "--detailed-exitcode", "--charts-dir", "c", "--cache-dir", "k"},
			want: &options{repo: "r", base: "b", head: "h", envs: []string{"qa", "prod"}, format: "json", output: "o.json",
				detailedExitCode: true, chartsDir: "c", cacheDir: "k"}},
		{name: "equals form and single dash", args: []string{"-format=markdown", "--base=origin/main"},
			want: &options{format: "markdown", base: "origin/main"}},
		{name: "help", args: []string{"--help"}, want: &options{format: "diff", help: true}},
		{name: "-h", args: []string{"-h"}, want: &options{format: "diff", help: true}},
		{name: "unknown format", args: []string{"--format", "yaml"}, wantErr: `--format must be markdown, diff or json, not "yaml"`},
		{name: "unknown flag", args: []string{"--colour"}, wantErr: "flag provided but not defined: -colour"},
		{name: "missing value", args: []string{"--base"}, wantErr: "flag needs an argument: -base"},
		{name: "positional argument", args: []string{"--base", "b", "HEAD~1"}, wantErr: `unexpected arguments "HEAD~1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseArgs(tt.args)
			if tt.wantErr != "" {
				// Usage errors print the usage text: they must say so.
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, errUsage) {
					t.Fatalf("parseArgs(%q) = %v, want a usage error containing %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(options{})); diff != "" {
				t.Errorf("parseArgs(%q) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		wantCode  int
		wantErr   string // exact stderr, "" for none
		wantUsage bool
	}{
		{name: "success", err: nil, wantCode: 0},
		{name: "changes", err: errChanged, wantCode: 2},
		{name: "wrapped changes", err: fmt.Errorf("x: %w", errChanged), wantCode: 2},
		{name: "render failure", err: fmt.Errorf("2 app(s) failed to render: %w", manifestdiff.ErrRender), wantCode: 1,
			wantErr: "manifestdiff: 2 app(s) failed to render: some apps could not be rendered\n"},
		{name: "multi-line error is one line", err: errors.New("discovering apps:\n  bad\tfile"), wantCode: 1,
			wantErr: "manifestdiff: discovering apps:; bad file\n"},
		{name: "usage", err: fmt.Errorf("unexpected arguments %q: %w", "x", errUsage), wantCode: 1, wantUsage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := exitCode(&ioStreams{Out: &out, ErrOut: &errOut}, tt.err)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d", code, tt.wantCode)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q, want nothing", out.String())
			}
			first, rest, _ := strings.Cut(errOut.String(), "\n")
			switch {
			case tt.wantUsage:
				if first != `manifestdiff: unexpected arguments "x"` || rest != usageText {
					t.Errorf("stderr %q, want the error without its usage suffix, then the usage", errOut.String())
				}
			case errOut.String() != tt.wantErr:
				t.Errorf("stderr %q, want %q", errOut.String(), tt.wantErr)
			}
		})
	}
}

// --help prints the usage to stdout and succeeds; --output writes the
// report to a file and only a summary line to stderr.
func TestHelpAndOutput(t *testing.T) {
	var out, errOut bytes.Buffer
	ios := &ioStreams{Out: &out, ErrOut: &errOut}
	if code := exitCode(ios, runArgs(context.Background(), []string{"--help"}, ios, func(string) string { return "" })); code != 0 || out.String() != usageText {
		t.Errorf("--help: exit %d, stdout %q", code, out.String())
	}

	f := newFleet(t)
	base, head := f.scenario(t)
	file := t.TempDir() + "/note.md"
	r := f.run(t, nil, "--base", base, "--head", head, "--format", "markdown", "--output", file)
	want := "wrote " + file + ": 24 apps, 3 changed, 2 added, 2 removed, 0 errors\n"
	if r.code != 0 || r.out != "" || r.errOut != want {
		t.Errorf("--output: exit %d, stdout %q, stderr %q; want 0, nothing, %q", r.code, r.out, r.errOut, want)
	}
	if data, err := os.ReadFile(file); err != nil || !strings.HasPrefix(string(data), "<!-- manifestdiff -->\n") {
		t.Errorf("--output file: %v\n%s", err, data)
	}
}
