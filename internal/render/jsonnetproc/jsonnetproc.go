// Package jsonnetproc evaluates a Jsonnet file in a child process of the
// running executable, under limits of time, memory and stack.
//
// go-jsonnet cannot be stopped: it takes no context, a program that loops
// never returns, one that builds a 10 GB string allocates it, and a deep
// enough recursion of Go code (its parser on nested brackets, its
// manifester on a value std.foldl nested a million times) overflows the Go
// stack, which kills the whole process and cannot be recovered. A merge
// request is untrusted input, so each evaluation runs in a process of its
// own: this executable started again with a marker argument, whose main
// (and test binaries' TestMain) calls Main first. The child limits its own
// address space, CPU time and stack, and reads the files the program
// imports from the parent over its stdin, so it sees nothing but the
// repository tree. The parent kills it at its deadline or when ctx is
// done. Whatever the child does, it is that app's error.
package jsonnetproc

import (
	"errors"
	"sync/atomic"
	"time"
)

// Bounds of one evaluation.
const (
	// Timeout is Argo CD's repo-server exec timeout (ARGOCD_EXEC_TIMEOUT,
	// 90s), which bounds every tool it runs for a manifest.
	Timeout = 90 * time.Second
	// Memory is what the evaluation may add to the child's address space
	// at its start: the largest jsonnet programs of real fleets
	// (kube-prometheus) evaluate within a few hundred MiB.
	Memory = 1 << 30
	// Stack bounds the child's goroutine stacks, below Memory, so that a
	// deep recursion is "stack overflow" and not "out of memory".
	Stack = 256 << 20
	// MaxStack is go-jsonnet's own bound of Jsonnet call depth (its
	// default, as Argo CD's).
	MaxStack = 500
	// MaxOutput bounds the JSON the child returns, as render bounds an
	// app's manifests.
	MaxOutput = 64 << 20
)

// childArg, as the first argument, starts the executable as an evaluator.
const childArg = "--gitops-promote-jsonnet-child-v1"

var (
	// ErrNotInstalled: the executable's main does not call Main.
	ErrNotInstalled = errors.New("this binary does not evaluate jsonnet in a child process (its main must call jsonnetproc.Main first)")
	// ErrTimeout: the evaluation took longer than Timeout.
	ErrTimeout = errors.New("took too long")
	// ErrTooLarge: it needed more memory or stack than allowed, or
	// returned more than MaxOutput.
	ErrTooLarge = errors.New("too large")
)

var hooked atomic.Bool

// Main runs the evaluator when this executable was started as one, and
// reports whether it was: main calls it first and exits with code when
// handled is true. Any other start only records that the hook is there.
func Main(args []string) (code int, handled bool) {
	hooked.Store(true)
	if len(args) < 2 || args[1] != childArg {
		return 0, false
	}
	return child(), true
}

// Var is an extVar or a top-level argument.
type Var struct {
	Name, Value string
	Code        bool
}

// Job is one evaluation: the file and library paths as the VM sees them
// (absolute), the variables, and the root under which the parent serves
// files.
type Job struct {
	File    string
	Root    string
	JPaths  []string // searched last first, after the importing file's dir
	TLAs    []Var
	ExtVars []Var
}

// message is one line from the child: a file to read, a trace line, or
// the end (Done with Result or Error).
type message struct {
	Read   string `json:"read,omitempty"`
	Trace  string `json:"trace,omitempty"`
	Done   bool   `json:"done,omitempty"`
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// answer is the parent's reply to a Read.
type answer struct {
	Found bool   `json:"found"`
	Data  []byte `json:"data,omitempty"`
	Error string `json:"error,omitempty"`
}
