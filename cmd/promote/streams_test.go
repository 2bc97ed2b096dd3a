package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Results go to stdout and progress to stderr, each fact once: the
// commit and the push are stated by the result, not logged as well.
func TestEachFactOnce(t *testing.T) {
	f := newFleet(t)
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	head := gitRun(t, f.Dir, "rev-parse", "--short=12", "HEAD")
	for _, want := range []string{"committed " + head + ": 3 files\n", "pushed to origin/main (attempts: 1)\n"} {
		if strings.Count(r.out, want) != 1 {
			t.Errorf("stdout does not state %q once:\n%s", want, r.out)
		}
	}
	if strings.Contains(r.errOut, head) || strings.Contains(r.errOut, "committed") || strings.Contains(r.errOut, "pushed") {
		t.Errorf("stderr repeats the result:\n%s", r.errOut)
	}
}

func TestPlurals(t *testing.T) {
	f := newFleet(t)
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--only", "gateway")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if !strings.Contains(r.out, ": 2 files\n") {
		t.Errorf("stdout:\n%s", r.out)
	}
	p := f.run(t, nil, "pin", "--env", "qa", "gateway.imageTag=v1.11")
	if p.code != 0 || !strings.Contains(p.out, ": 1 file\n") {
		t.Errorf("pin of one file: exit %d, stdout:\n%s%s", p.code, p.out, p.errOut)
	}
}

// plan --detailed-exitcode: 0 nothing to promote, 2 changes, 1 errors,
// as terraform plan.
func TestPlanDetailedExitCode(t *testing.T) {
	f := newFleet(t)
	if r := f.run(t, nil, "plan", "--from", "qa", "--to", "preprod", "--detailed-exitcode"); r.code != 2 || !strings.Contains(r.out, "COMPONENT") || r.errOut != "" {
		t.Errorf("changes: exit %d, stdout %q, stderr %q; want 2 and the plan", r.code, r.out, r.errOut)
	}
	if r := f.run(t, nil, "plan", "--from", "qa", "--to", "preprod"); r.code != 0 {
		t.Errorf("changes without the flag: exit %d", r.code)
	}
	if r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod"); r.code != 0 {
		t.Fatalf("apply: exit %d: %s", r.code, r.errOut)
	}
	if r := f.run(t, nil, "plan", "--from", "qa", "--to", "preprod", "--detailed-exitcode", "-o", "json"); r.code != 0 || !strings.Contains(r.out, `"upToDate": true`) {
		t.Errorf("nothing to do: exit %d, stdout %q", r.code, r.out)
	}
	if r := f.run(t, nil, "plan", "--from", "qa", "--to", "staging", "--detailed-exitcode"); r.code != 1 {
		t.Errorf("error: exit %d, want 1", r.code)
	}
}

// The plan's diff is coloured on a terminal unless NO_COLOR is set or
// --color says otherwise; --quiet leaves the results and drops the rest.
func TestColorAndQuiet(t *testing.T) {
	f := newFleet(t)
	plan := []string{"plan", "--from", "qa", "--to", "preprod", "--repo", f.Dir}
	tests := []struct {
		name    string
		tty     bool
		env     map[string]string
		args    []string
		colored bool
	}{
		{"terminal", true, nil, nil, true},
		{"pipe", false, nil, nil, false},
		{"NO_COLOR on a terminal", true, map[string]string{"NO_COLOR": "1"}, nil, false},
		{"--color never on a terminal", true, nil, []string{"--color", "never"}, false},
		{"--color always to a pipe", false, nil, []string{"--color", "always"}, true},
		{"--color always beats NO_COLOR", false, map[string]string{"NO_COLOR": "1"}, []string{"--color=always"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			ios := &ioStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutTTY: tt.tty}
			code := exitCode(ios, runArgs(t.Context(), append(plan, tt.args...), ios, func(k string) string { return tt.env[k] }))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if got := strings.Contains(out.String(), "\x1b[32m+"); got != tt.colored {
				t.Errorf("coloured = %v, want %v:\n%s", got, tt.colored, out.String())
			}
		})
	}
	// a dirty source versions file is worth a warning even with --quiet;
	// the result is unchanged
	writeFile(t, f, "versions/qa.yaml", f.read(t, "versions/qa.yaml")+"# wip\n")
	quiet := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push", "--quiet")
	if quiet.code != 0 {
		t.Fatalf("exit %d: %s", quiet.code, quiet.errOut)
	}
	if !strings.Contains(quiet.errOut, "has uncommitted changes, which are not promoted") {
		t.Errorf("--quiet dropped the warning: %q", quiet.errOut)
	}
	if !strings.Contains(quiet.out, "committed ") || !strings.Contains(quiet.out, "pushed to origin/main") {
		t.Errorf("--quiet dropped results:\n%s", quiet.out)
	}
	if strings.Count(quiet.errOut, "\n") != 1 {
		t.Errorf("--quiet stderr has more than the warning:\n%s", quiet.errOut)
	}
}

func writeFile(t *testing.T, f *fleet, path, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.Dir, path), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The same with --merge-request: the branch push and the merge request are
// stated on stdout, once, and stderr has no line about them.
func TestEachFactOnceMergeRequest(t *testing.T) {
	m := newMRFleet(t)
	r := m.runOK(t, applyMR...)
	tip := m.remoteRef(t, promoteBranch)
	mr := m.oneOpenMR(t)
	for _, want := range []string{"pushed " + tip[:12] + " to origin/" + promoteBranch + "\n",
		"merge request opened (" + promoteBranch + "): " + mr.WebURL + "\n"} {
		if strings.Count(r.out, want) != 1 {
			t.Errorf("stdout does not state %q once:\n%s", want, r.out)
		}
	}
	if strings.Contains(r.errOut, tip[:7]) || strings.Contains(r.errOut, "pushed") || strings.Contains(r.errOut, mr.WebURL) {
		t.Errorf("stderr repeats the result:\n%s", r.errOut)
	}
	// Unchanged rerun: nothing pushed, and nothing says it was.
	r = m.runOK(t, applyMR...)
	if strings.Contains(r.out+r.errOut, "pushed") || !strings.Contains(r.out, "merge request unchanged ("+promoteBranch+")") {
		t.Errorf("unchanged rerun:\nstdout:\n%s\nstderr:\n%s", r.out, r.errOut)
	}
}
