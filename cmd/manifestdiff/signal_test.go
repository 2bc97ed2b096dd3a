package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/hang"
)

// checkInterrupt: SIGINT while the binary waits for a chart stops the run
// with one line saying so, exit 1, and no report: an interrupted render is
// no app's failure, and a report of them would say it was.
func checkInterrupt(t *testing.T, bin string) {
	f := newFleet(t)
	f.edit(t, "versions/qa.yaml", `imageTag: "v3.2.0"`, `imageTag: "v3.3.0"`)
	head := f.commit(t, "a change to render")
	hung := hang.New(t)
	f.Charts.Config.Handler = hung
	report := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(bin, "--repo", f.Dir, "--base", head+"~1", "--head", head, "--cache-dir", t.TempDir(),
		"-o", "json", "--output-file", report)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := hang.Interrupt(t, cmd, hung, syscall.SIGINT)
	var ee *exec.ExitError
	if line := strings.TrimSpace(errb.String()); err == nil || !(errors.As(err, &ee) && ee.Exited() && ee.ExitCode() == 1) ||
		line != "manifestdiff: interrupted by SIGINT; no report written or posted" {
		t.Errorf("exit %v, stderr %q; want exit 1 and the interruption alone", err, errb.String())
	}
	if _, err := os.Stat(report); !os.IsNotExist(err) || out.Len() > 0 {
		t.Errorf("a report was written: %v, stdout %q", err, out.String())
	}
}
