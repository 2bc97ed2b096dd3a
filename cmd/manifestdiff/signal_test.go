package main

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// checkInterrupt: SIGINT while the binary waits for a chart stops the run
// with one line saying so, exit 1, and no report: an interrupted render is
// no app's failure, and a report of them would say it was.
func checkInterrupt(t *testing.T, bin string) {
	f := newFleet(t)
	f.edit(t, "versions/qa.yaml", `imageTag: "v3.2.0"`, `imageTag: "v3.3.0"`)
	head := f.commit(t, "a change to render")
	asked, release := make(chan struct{}, 64), make(chan struct{})
	f.Charts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	report := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(bin, "--repo", f.Dir, "--base", head+"~1", "--head", head, "--cache-dir", t.TempDir(),
		"-o", "json", "--output-file", report)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("manifestdiff never asked the chart repository")
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("manifestdiff still runs after SIGINT")
	}
	var ee *exec.ExitError
	if line := strings.TrimSpace(errb.String()); err == nil || !(errors.As(err, &ee) && ee.Exited() && ee.ExitCode() == 1) ||
		line != "manifestdiff: interrupted by SIGINT; no report written or posted" {
		t.Errorf("exit %v, stderr %q; want exit 1 and the interruption alone", err, errb.String())
	}
	if _, err := os.Stat(report); !os.IsNotExist(err) || out.Len() > 0 {
		t.Errorf("a report was written: %v, stdout %q", err, out.String())
	}
}
