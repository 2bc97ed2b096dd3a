package main

import (
	"bytes"
	"encoding/json"
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
// with one line saying so, exit 1, and the partial report written: the
// app the signal cut short is listed as not rendered, "interrupted" (an
// error, never a change or "unchanged").
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
	// what --output-file always says, then the interruption
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if err == nil || !(errors.As(err, &ee) && ee.Exited() && ee.ExitCode() == 1) || len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "wrote "+report+": ") ||
		!strings.HasPrefix(lines[1], "manifestdiff: interrupted by SIGINT: ") ||
		!strings.HasSuffix(lines[1], " not rendered; partial report written, not posted") {
		t.Errorf("exit %v, stderr %q; want exit 1, the report's line and the interruption", err, errb.String())
	}
	if out.Len() > 0 {
		t.Errorf("stdout %q; the report goes to --output-file", out.String())
	}
	checkInterruptedReport(t, report, "SIGINT")
}

// checkInterruptedReport: the JSON report at path lists at least one app
// as not rendered, interrupted by sig, and counts it as an error.
func checkInterruptedReport(t *testing.T, path, sig string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no partial report: %v", err)
	}
	var rep struct {
		Apps []struct {
			Env, Name, Status, Error, NotRendered string
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, data)
	}
	cut := 0
	for _, a := range rep.Apps {
		if a.NotRendered == "interrupted" {
			cut++
			if a.Status != "error" || !strings.Contains(a.Error, "not rendered: interrupted by "+sig) {
				t.Errorf("interrupted app %s/%s: status %q, error %q", a.Env, a.Name, a.Status, a.Error)
			}
		}
	}
	if cut == 0 {
		t.Errorf("no app listed as interrupted:\n%s", data)
	}
}
