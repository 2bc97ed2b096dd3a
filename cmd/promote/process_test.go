package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
)

// The tests in this file and in concurrent_test.go, kill_test.go and
// https_test.go run the real promote binary as a child process: main's
// exit codes and streams, the real environment, real signals, real
// concurrency between processes. The in-process tests call runArgs and
// cannot see any of that.

var crashBuilt struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if crashBuilt.dir != "" {
		os.RemoveAll(crashBuilt.dir)
	}
	clitest.RemoveBuilds()
	os.Exit(code)
}

// promoteBinary returns the release build of promote, linked once per
// test process (clitest.BuildRelease) and only when a process test asks
// for it, so that `go test -run X` of an in-process test pays no link.
func promoteBinary(t *testing.T) string {
	t.Helper()
	return clitest.BuildRelease(t, "../..", "./cmd/promote")
}

// processEnv is the whole environment of a child: nothing is inherited
// but PATH (promote runs git-receive-pack for file:// remotes), so a
// token or identity set on the developer's machine or in CI cannot make a
// test pass or leak into it.
func processEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1",
		"LC_ALL=C",
	}, extra...)
}

// promoteCmd prepares promote args in dir; the caller starts it.
func promoteCmd(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(promoteBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// exitStatus turns Wait's error into an exit code; anything but a normal
// exit (a signal, a failure to start) fails the test.
func exitStatus(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode()
	}
	t.Fatalf("promote did not exit normally: %v", err)
	return -1
}

// runPromote runs promote to completion in dir.
func runPromote(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd, stdout, stderr := promoteCmd(t, dir, env, args...)
	code := exitStatus(t, cmd.Run())
	return result{code: code, out: stdout.String(), errOut: stderr.String()}
}

// decodeResult parses --output json.
func decodeResult(t *testing.T, r result) resultJSON {
	t.Helper()
	var res resultJSON
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatalf("stdout is not the JSON result: %v\nstdout: %s\nstderr: %s", err, r.out, r.errOut)
	}
	return res
}

// gitEnv runs the git CLI in dir with exactly env and returns its trimmed
// output.
func gitEnv(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestProcessWiring checks what only the binary shows: exit codes, which
// stream gets what, and that identity comes from the real environment.
func TestProcessWiring(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		env        []string
		noIdentity bool // drop the fleet's repo-local user.name/user.email
		wantCode   int
		wantOut    string // substring of stdout
		wantErr    string // prefix of stderr
		wantAuthor string // author of HEAD after the run; "" if HEAD must not move
	}{
		{name: "apply with repo identity", args: []string{"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check"},
			wantOut: "committed ", wantAuthor: "Release Manager"},
		{name: "identity from the environment wins", args: []string{"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check"},
			env: []string{"GIT_AUTHOR_NAME=Env Author", "GIT_AUTHOR_EMAIL=env@example.com"}, wantOut: "committed ", wantAuthor: "Env Author"},
		{name: "no identity", args: []string{"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check"}, noIdentity: true,
			wantCode: 1, wantErr: "promote: author: set user.name and user.email"},
		{name: "refusal", args: []string{"apply", "--from", "qa", "--to", "prod"},
			wantCode: 1, wantErr: "promote: qa -> prod: prod is promoted from preprod"},
		{name: "usage", args: []string{"apply", "--from", "qa"}, wantCode: 1, wantErr: "promote: apply needs --to"},
		{name: "plan", args: []string{"plan", "--from", "qa", "--to", "preprod"}, wantOut: "+++ b/versions/preprod.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t)
			if tt.noIdentity {
				gitRun(t, f.Dir, "config", "--unset", "user.name")
				gitRun(t, f.Dir, "config", "--unset", "user.email")
			}
			before := gitRun(t, f.Dir, "rev-parse", "HEAD")
			r := runPromote(t, f.Dir, processEnv(t, tt.env...), tt.args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.wantCode, r.out, r.errOut)
			}
			if !strings.Contains(r.out, tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", r.out, tt.wantOut)
			}
			if tt.wantErr != "" && !strings.HasPrefix(r.errOut, tt.wantErr) {
				t.Errorf("stderr %q does not start with %q", r.errOut, tt.wantErr)
			}
			if tt.wantCode != 0 && r.out != "" {
				t.Errorf("a failed command printed results: %q", r.out)
			}
			author := ""
			if head := gitRun(t, f.Dir, "rev-parse", "HEAD"); head != before {
				author = gitRun(t, f.Dir, "log", "-1", "--format=%an")
			}
			if author != tt.wantAuthor {
				t.Errorf("HEAD author %q, want %q (\"\": HEAD must not move)", author, tt.wantAuthor)
			}
		})
	}
}
