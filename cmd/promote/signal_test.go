package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGINT or SIGTERM while apply waits on the chart repository cancels the
// wait: promote exits 1 with a one-line error that says so (not "chart
// check failed, re-run with --skip-chart-check", as it did), not by the
// signal, and has written nothing.
func TestSignalCancelsTheRunAndWritesNothing(t *testing.T) {
	for name, sig := range map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM} {
		t.Run(name, func(t *testing.T) {
			f := newFleet(t)
			asked, release := make(chan struct{}, 8), make(chan struct{})
			f.Charts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked <- struct{}{}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			})
			t.Cleanup(func() { close(release) })
			before := f.snapshot(t)
			cmd, stdout, stderr := promoteCmd(t, f.Dir, processEnv(t), "apply", "--from", "qa", "--to", "preprod")
			interruptWhenAsked(t, cmd, stdout, stderr, asked, sig, "checking charts: interrupted by "+name+" (nothing was written)")
			if after := f.snapshot(t); after != before {
				t.Errorf("something was written:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

// The same while the gates wait on GitLab, for apply and for plan: an
// interrupted evaluation is not a gate that "cannot evaluate", refused
// with exit code 3.
func TestSignalDuringTheGatesIsNoRefusal(t *testing.T) {
	m := newGatedFleet(t, "{sourceHealthy: true}", alwaysOpen)
	for _, args := range [][]string{
		{"apply", "--from", "preprod", "--to", "prod", "--skip-chart-check"},
		{"plan", "--from", "preprod", "--to", "prod"},
	} {
		t.Run(args[0], func(t *testing.T) {
			asked, release := make(chan struct{}, 8), make(chan struct{})
			hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked <- struct{}{}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			t.Cleanup(func() { close(release); hung.Close() })
			before := m.snapshot(t)
			env := processEnv(t, "CI_API_V4_URL="+hung.URL+"/api/v4", "CI_PROJECT_ID="+mrProject, "GITLAB_TOKEN="+m.gl.Token())
			cmd, stdout, stderr := promoteCmd(t, m.Dir, env, args...)
			interruptWhenAsked(t, cmd, stdout, stderr, asked, syscall.SIGINT, "evaluating the gates: interrupted by SIGINT (nothing was written)")
			if after := m.snapshot(t); after != before {
				t.Errorf("something was written:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

// interruptWhenAsked starts cmd, sends sig once a server it calls was
// asked, and checks that promote exits 1 by itself with want as its one
// line of stderr, and prints no result.
func interruptWhenAsked(t *testing.T, cmd *exec.Cmd, stdout, stderr *bytes.Buffer, asked chan struct{}, sig syscall.Signal, want string) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("promote never asked the server")
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("promote still runs after %s", sig)
	}
	code := exitStatus(t, err)
	if line := strings.TrimSpace(stderr.String()); code != 1 || line != "promote: "+want {
		t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, "promote: "+want)
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout %q, want nothing", stdout)
	}
}
