//go:build crashtest

package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"

	"github.com/gitops-promote/gitops-promote/internal/git"
)

// Crash tests build promote with -tags crashtest. PROMOTE_CRASH_LOG names
// a file that gets one line per durable step (op and path);
// PROMOTE_CRASH_AT=N kills the process with SIGKILL just before its N-th
// step. The hook is set before main runs, so every step is counted.
func init() {
	at, _ := strconv.Atoi(os.Getenv("PROMOTE_CRASH_AT"))
	logPath := os.Getenv("PROMOTE_CRASH_LOG")
	if at <= 0 && logPath == "" {
		return
	}
	var log *os.File
	if logPath != "" {
		var err error
		if log, err = os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
			panic(err)
		}
	}
	var mu sync.Mutex
	n := 0
	git.SetFaultHook(func(op, path string) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if log != nil {
			fmt.Fprintf(log, "%d %s %s\n", n, op, path)
		}
		if n == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	})
}
