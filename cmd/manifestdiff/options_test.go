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
	"github.com/spf13/pflag"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/manifestdiff"
)

// parse runs a command line through the real command tree with a run
// function that only records the options.
func parse(args ...string) (got *options, err error, out, errOut string) {
	var o, e bytes.Buffer
	ios := &ioStreams{Out: &o, ErrOut: &e}
	root := newRootCmd(ios, func(_ context.Context, opts *options) error { got = opts; return nil })
	root.SetArgs(append([]string{}, args...))
	_, err = root.ExecuteC()
	return got, err, o.String(), e.String()
}

func TestParse(t *testing.T) {
	g := cli.Globals{Color: "auto"}
	tests := []struct {
		name       string
		args       []string
		want       options
		wantStderr string
	}{
		{name: "defaults", args: nil, want: options{Globals: g, failOn: "error", output: "diff"}},
		{name: "every flag", args: []string{"--repo", "r", "--base", "b", "--head", "h", "--env", "qa", "--env", "prod",
			"-o", "json", "--output-file", "o.json", "--detailed-exitcode", "--charts-dir", "c", "--cache-dir", "k", "--post",
			"--color", "never", "-q", "--all", "--fail-on", "warning"},
			want: options{Globals: cli.Globals{Color: "never", Quiet: true}, failOn: "warning", all: true, repo: "r", base: "b", head: "h", envs: []string{"qa", "prod"},
				output: "json", outputFile: "o.json", detailedExitCode: true, chartsDir: "c", cacheDir: "k", post: true}},
		{name: "live", args: []string{"--live", "--kubeconfig", "kc", "--context", "qa-readonly", "--env", "qa"},
			want: options{Globals: g, failOn: "error", output: "diff", live: true, kubeconfig: "kc", kubeContext: "qa-readonly", envs: []string{"qa"}}},
		{name: "html linked from the note", args: []string{"-o", "html", "--output-file", "r.html", "--post", "--report-url", "https://pages.example.com/g/p/r.html"},
			want: options{Globals: g, failOn: "error", output: "html", outputFile: "r.html", post: true, reportURL: "https://pages.example.com/g/p/r.html"}},
		{name: "equals form", args: []string{"--output=markdown", "--base=origin/main", "--env=qa,prod"},
			want: options{Globals: g, failOn: "error", output: "markdown", base: "origin/main", envs: []string{"qa", "prod"}}},
		// the old spellings still work, each with a warning on stderr
		{name: "deprecated --format", args: []string{"--format", "markdown"}, want: options{Globals: g, failOn: "error", output: "markdown"},
			wantStderr: "manifestdiff: warning: --format is deprecated: use -o/--output\n"},
		{name: "old --output FILE", args: []string{"--format", "markdown", "--output", "manifest-diff.md"},
			want: options{Globals: g, failOn: "error", output: "markdown", outputFile: "manifest-diff.md", legacyOutputFile: "manifest-diff.md"},
			wantStderr: "manifestdiff: warning: --format is deprecated: use -o/--output\n" +
				"manifestdiff: warning: --output FILE is deprecated: use --output-file FILE (--output now takes the format, as in kubectl and helm)\n"},
		{name: "old --output DIR/FILE", args: []string{"--output", "out/report"},
			want:       options{Globals: g, failOn: "error", output: "diff", outputFile: "out/report", legacyOutputFile: "out/report"},
			wantStderr: "manifestdiff: warning: --output FILE is deprecated: use --output-file FILE (--output now takes the format, as in kubectl and helm)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err, out, errOut := parse(tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, got, cmp.AllowUnexported(options{})); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
			if out != "" || errOut != tt.wantStderr {
				t.Errorf("stdout %q, stderr %q; want stderr %q", out, errOut, tt.wantStderr)
			}
		})
	}
}

// Usage errors: one line, the likely intent, a pointer to --help.
func TestUsageErrors(t *testing.T) {
	tests := []struct{ args, want string }{
		{"-o yaml", `invalid -o/--output "yaml": must be diff, markdown, json or html (to write the report to a file, use --output-file FILE); see 'manifestdiff --help'`},
		{"--output report", `use --output-file FILE`},
		{"--output x.md --output-file y.md", "--output x.md names a file, and --output-file is given too"},
		{"--report-url report.html", "--report-url report.html: must be an absolute http or https URL"},
		{"--report-url https://x.example/r.html#top", "must have no #fragment"},
		{"--colour", "unknown flag --colour (did you mean --color?); see 'manifestdiff --help'"},
		{"--bsae main", "unknown flag --bsae (did you mean --base?)"},
		{"--detailed-exit-code", "unknown flag --detailed-exit-code (did you mean --detailed-exitcode?)"},
		{"--base", "--base needs a value; see 'manifestdiff --help'"},
		{"--base b HEAD~1", `unknown command "HEAD~1"`},
		{"verison", `unknown command "verison" (did you mean version?); see 'manifestdiff --help'`},
		{"--color sometimes", `invalid --color "sometimes": must be auto, always or never`},
		{"--context qa", "--kubeconfig and --context select the cluster of --live: add --live"},
		{"--fail-on info", "--fail-on info: must be error, warning, never"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got, err, out, errOut := parse(strings.Fields(tt.args)...)
			if got != nil || err == nil {
				t.Fatalf("parsed to %+v, %v; want a usage error", got, err)
			}
			var stderr bytes.Buffer
			code := exitCode(&ioStreams{ErrOut: &stderr}, err)
			line := stderr.String()
			if code != 1 || !strings.HasPrefix(line, "manifestdiff: ") || strings.Count(line, "\n") != 1 ||
				!strings.Contains(line, tt.want) || !strings.HasSuffix(line, "--help'\n") {
				t.Errorf("exit %d, stderr %q; want one line containing %q and pointing at --help", code, line, tt.want)
			}
			if out != "" || errOut != "" {
				t.Errorf("the command tree printed by itself: stdout %q, stderr %q", out, errOut)
			}
		})
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode int
		wantErr  string // exact stderr, "" for none
	}{
		{name: "success", err: nil, wantCode: 0},
		{name: "changes", err: errChanged, wantCode: 2},
		{name: "wrapped changes", err: fmt.Errorf("x: %w", errChanged), wantCode: 2},
		{name: "render failure", err: fmt.Errorf("2 app(s) failed to render: %w", manifestdiff.ErrRender), wantCode: 1,
			wantErr: "manifestdiff: 2 app(s) failed to render: some apps could not be rendered\n"},
		{name: "multi-line error is one line", err: errors.New("discovering apps:\n  bad\tfile"), wantCode: 1,
			wantErr: "manifestdiff: discovering apps:; bad file\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := exitCode(&ioStreams{Out: &out, ErrOut: &errOut}, tt.err)
			if code != tt.wantCode || out.Len() != 0 || errOut.String() != tt.wantErr {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, %q", code, out.String(), errOut.String(), tt.wantCode, tt.wantErr)
			}
		})
	}
}

// --help (and help) describe every flag on stdout and run nothing.
func TestHelp(t *testing.T) {
	root := newRootCmd(&ioStreams{}, nil)
	for _, form := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		got, err, out, errOut := parse(form...)
		if err != nil || got != nil || errOut != "" || !strings.HasPrefix(out, "manifestdiff renders every Argo CD") ||
			!strings.Contains(out, "Usage:\n  manifestdiff [flags]") {
			t.Fatalf("%v: err %v, ran %v, stderr %q, stdout:\n%s", form, err, got != nil, errOut, out)
		}
		root.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				if strings.Contains(out, "--"+f.Name) {
					t.Errorf("%v: help shows the hidden --%s", form, f.Name)
				}
				return
			}
			if strings.TrimSpace(f.Usage) == "" || !strings.Contains(out, "--"+f.Name) || !strings.Contains(out, firstWords(f.Usage)) {
				t.Errorf("%v: help lacks --%s and its description %q", form, f.Name, f.Usage)
			}
		})
	}
}

func firstWords(s string) string {
	s = strings.ReplaceAll(s, "`", "")
	if len(s) > 30 {
		return s[:30]
	}
	return s
}

// --output-file writes the report to a file and only a summary line to
// stderr; --quiet drops that line too.
func TestOutputFile(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	file := t.TempDir() + "/note.md"
	r := f.run(t, nil, "--base", base, "--head", head, "-o", "markdown", "--output-file", file)
	want := "wrote " + file + ": 24 apps, 3 changed, 2 added, 2 removed, 0 errors\n"
	if r.code != 0 || r.out != "" || r.errOut != want {
		t.Errorf("--output-file: exit %d, stdout %q, stderr %q; want 0, nothing, %q", r.code, r.out, r.errOut, want)
	}
	if data, err := os.ReadFile(file); err != nil || !strings.HasPrefix(string(data), "<!-- manifestdiff -->\n") {
		t.Errorf("--output-file file: %v\n%s", err, data)
	}
	q := f.run(t, nil, "--base", base, "--head", head, "-o", "markdown", "--output-file", file, "--quiet")
	if q.code != 0 || q.out != "" || q.errOut != "" {
		t.Errorf("--quiet: exit %d, stdout %q, stderr %q", q.code, q.out, q.errOut)
	}
	// the spelling of docs before --output-file: same file, plus a warning
	old := f.run(t, nil, "--base", base, "--head", head, "--format", "markdown", "--output", file)
	if data, _ := os.ReadFile(file); old.code != 0 || old.out != "" || !strings.HasPrefix(string(data), "<!-- manifestdiff -->\n") ||
		!strings.Contains(old.errOut, "warning: --format is deprecated") || !strings.HasSuffix(old.errOut, want) {
		t.Errorf("old flags: exit %d, stdout %q, stderr %q", old.code, old.out, old.errOut)
	}
}
