package main

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/hang"
)

// SIGINT or SIGTERM while apply waits on the chart repository cancels the
// wait: promote exits 1 with a one-line error that says so (not "chart
// check failed, re-run with --skip-chart-check", as it did), not by the
// signal, and has written nothing.
func TestSignalCancelsTheRunAndWritesNothing(t *testing.T) {
	for name, sig := range map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM} {
		t.Run(name, func(t *testing.T) {
			f := newFleet(t)
			hung := hang.New(t)
			f.Charts.Config.Handler = hung
			before := f.snapshot(t)
			cmd, stdout, stderr := promoteCmd(t, f.Dir, processEnv(t), "apply", "--from", "qa", "--to", "preprod")
			checkInterrupted(t, hang.Interrupt(t, cmd, hung, sig), stdout, stderr, "checking charts: interrupted by "+name+" (nothing was written)")
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
			handler := hang.New(t)
			hung := httptest.NewServer(handler)
			t.Cleanup(hung.Close)
			before := m.snapshot(t)
			env := processEnv(t, "CI_API_V4_URL="+hung.URL+"/api/v4", "CI_PROJECT_ID="+mrProject, "GITLAB_TOKEN="+m.gl.Token())
			cmd, stdout, stderr := promoteCmd(t, m.Dir, env, args...)
			checkInterrupted(t, hang.Interrupt(t, cmd, handler, syscall.SIGINT), stdout, stderr, "evaluating the gates: interrupted by SIGINT (nothing was written)")
			if after := m.snapshot(t); after != before {
				t.Errorf("something was written:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

// checkInterrupted: promote exited 1 by itself (err is Wait's) with want
// as its one line of stderr, and printed no result.
func checkInterrupted(t *testing.T, err error, stdout, stderr *bytes.Buffer, want string) {
	t.Helper()
	code := exitStatus(t, err)
	if line := strings.TrimSpace(stderr.String()); code != 1 || line != "promote: "+want {
		t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, "promote: "+want)
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout %q, want nothing", stdout)
	}
}
