package rendercheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// report is what Result reads of manifestdiff's JSON report.
type report struct {
	Findings json.RawMessage `json:"findings"`
	Summary  json.RawMessage `json:"summary"`
	Apps     []struct {
		Env    string `json:"env"`
		Name   string `json:"name"`
		Status string `json:"status"`
		Error  string `json:"error"`
	} `json:"apps"`
}

// run runs manifestdiff -o json with args and reads its report. Exit 1
// with a report written is manifestdiff's verdict (Result.Failed); no
// report, or another exit, is an error naming its last stderr line.
func (r *Runner) run(ctx context.Context, args []string) (*Result, error) {
	args = append([]string{"--repo", r.Repo.Root(), "-o", "json", "--color", "never"}, args...)
	cmd := exec.CommandContext(ctx, r.Exe, args...)
	cmd.Env = r.Env
	// cancelled (promote got a signal): manifestdiff stops its renders on
	// SIGTERM within a second or two; killed only if it does not
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	err := cmd.Run()
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if err == nil {
		last = ""
	} else {
		// the failure is the caller's to state, once
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" && r.Stderr != nil {
			r.Stderr(l)
		}
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s interrupted: %w", r.Exe, context.Cause(ctx))
	}
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, fmt.Errorf("running %s: %w%s", r.Exe, err, said(last))
	}
	res, perr := parse(out.Bytes())
	if perr != nil {
		if err != nil {
			return nil, fmt.Errorf("%s failed%s", r.Exe, said(last))
		}
		return nil, fmt.Errorf("reading %s's JSON report: %w", r.Exe, perr)
	}
	if err != nil {
		res.Failed = strings.TrimPrefix(last, Tool+": ")
	}
	return res, nil
}

func said(line string) string {
	if line == "" {
		return ""
	}
	return ": " + strings.TrimPrefix(line, Tool+": ")
}

// parse reads the report: its findings and its apps in error.
func parse(data []byte) (*Result, error) {
	var rep report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, err
	}
	if rep.Summary == nil {
		return nil, errors.New("not a manifestdiff report (no summary)")
	}
	res := &Result{Raw: rep.Findings}
	if len(rep.Findings) > 0 {
		if err := json.Unmarshal(rep.Findings, &res.Findings); err != nil {
			return nil, fmt.Errorf("findings: %w", err)
		}
	} else {
		res.Raw = json.RawMessage("[]")
	}
	for _, a := range rep.Apps {
		switch a.Status {
		case "error":
			res.Errors = append(res.Errors, AppError{Env: a.Env, Name: a.Name, Error: a.Error})
		case "unchanged":
		default:
			res.Rendered++
		}
	}
	return res, nil
}
