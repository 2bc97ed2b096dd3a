package jsonnetproc

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/testutil/endless"
)

// TestMain lets this test binary be the evaluator, as main does.
func TestMain(m *testing.M) {
	if code, handled := Main(os.Args); handled {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func cmpOr(a, b time.Duration) time.Duration {
	if a != 0 {
		return a
	}
	return b
}

func files(m map[string]string) func(string) (bool, []byte, error) {
	return func(rel string) (bool, []byte, error) {
		s, ok := m[rel]
		return ok, []byte(s), nil
	}
}

func eval(ctx context.Context, src string) (string, error) {
	job := Job{File: "/r/main.jsonnet", Root: "/r", JPaths: []string{"/r"}}
	return Evaluate(ctx, job, files(map[string]string{"main.jsonnet": src}), io.Discard)
}

// errTimeoutOrTooLarge, as a case's want, takes either bound: the one
// a machine's speed meets first.
var errTimeoutOrTooLarge = errors.New("ErrTimeout or ErrTooLarge")

func isBound(err, want error) bool {
	if want == errTimeoutOrTooLarge {
		return errors.Is(err, ErrTimeout) || errors.Is(err, ErrTooLarge)
	}
	return errors.Is(err, want)
}

// TestRunawayIsAnError: whatever a program does, it is an error of its
// evaluation, within bounded time, and this process lives on.
func TestRunawayIsAnError(t *testing.T) {
	defer func(d time.Duration) { timeout = d }(timeout)
	deep := 2_000_000
	tests := []struct {
		name, src string
		is        error  // nil: go-jsonnet's own error
		text      string // in the error
		timeout   time.Duration
	}{
		// a loop that grows neither stack nor heap: only the deadline ends it
		{"loop", endless.JsonnetLoop, ErrTimeout, "more than 1s", time.Second},
		// tailstrict still grows the Go stack: the deadline or the 256 MiB
		// stack ends it, whichever comes first (the stack in 0.9 s on a
		// fast machine, the deadline on a slow one)
		{"tail recursion", `local f(x) = f(x + 1) tailstrict; f(0)`, errTimeoutOrTooLarge, "", time.Second},
		{"10 GB string", `local d(s, n) = if n == 0 then s else d(s + s, n - 1) tailstrict; std.length(d("x", 34))`, ErrTooLarge, "memory", 0},
		{"10 GB array", `std.length(std.makeArray(1000000000, function(i) i))`, ErrTooLarge, "memory", 0},
		{"recursion", `local f(n) = if n == 0 then 0 else 1 + f(n - 1); f(1000000)`, nil, "max stack frames exceeded", 0},
		{"nested arrays in the source", strings.Repeat("[", deep) + strings.Repeat("]", deep), ErrTooLarge, "", 0},
		{"nested objects in the source", strings.Repeat("{a:", deep) + "1" + strings.Repeat("}", deep), ErrTooLarge, "", 0},
		{"foldl nesting", `std.foldl(function(acc, x) [acc], std.range(1, 3000000), [])`, ErrTooLarge, "", 0},
		{"output past the bound", `local s = std.join("", std.makeArray(4096, function(i) "0123456789abcdef")); [s for i in std.range(1, 1100)]`, ErrTooLarge, "output of more than 64 MiB", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// slow on a loaded machine: the child runs one thread
			timeout = cmpOr(tc.timeout, 90*time.Second)
			start := time.Now()
			_, err := eval(context.Background(), tc.src)
			t.Logf("%v: %v", time.Since(start).Round(time.Millisecond), err)
			switch {
			case err == nil:
				t.Fatal("no error")
			case tc.is != nil && !isBound(err, tc.is):
				t.Errorf("error %v; want %v", err, tc.is)
			case tc.is == nil && (errors.Is(err, ErrTooLarge) || errors.Is(err, ErrTimeout)):
				t.Errorf("error %v; want go-jsonnet's own", err)
			case !strings.Contains(err.Error(), tc.text) || strings.Contains(err.Error(), "\n") && tc.is != nil:
				t.Errorf("error %q; want one line with %q", err, tc.text)
			}
			if d := time.Since(start); d > timeout+5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestCancelStopsTheChild: a done context ends the evaluation at once,
// with the context's cause.
func TestCancelStopsTheChild(t *testing.T) {
	cause := errors.New("interrupted by SIGTERM")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(500*time.Millisecond, func() { cancel(cause) })
	start := time.Now()
	_, err := eval(ctx, endless.JsonnetLoop)
	if d := time.Since(start); !errors.Is(err, cause) || d > 3*time.Second {
		t.Errorf("%v after %v; want the cause within a few seconds", err, d)
	}
}

// TestEvaluates: imports are read from the parent (and only under Root),
// variables reach the program, traces come back.
func TestEvaluates(t *testing.T) {
	job := Job{File: "/r/app/main.jsonnet", Root: "/r", JPaths: []string{"/r/app", "/r/lib"},
		TLAs: []Var{{Name: "n", Value: "2", Code: true}}, ExtVars: []Var{{Name: "env", Value: "qa"}}}
	fsys := files(map[string]string{
		"app/main.jsonnet": `local l = import 'l.libsonnet'; function(n) std.trace("hi", {kind: l.k, n: n, env: std.extVar('env')})`,
		"lib/l.libsonnet":  `{k: 'ConfigMap'}`,
	})
	var trace strings.Builder
	out, err := Evaluate(context.Background(), job, fsys, &trace)
	if err != nil || strings.Join(strings.Fields(out), "") != `{"env":"qa","kind":"ConfigMap","n":2}` || !strings.Contains(trace.String(), "hi") {
		t.Fatalf("%q, %v, trace %q", out, err, trace.String())
	}
	job.File = "/r/app/other.jsonnet"
	fsys = files(map[string]string{"app/other.jsonnet": `import '/etc/passwd'`})
	if _, err := Evaluate(context.Background(), job, fsys, io.Discard); err == nil || !strings.Contains(err.Error(), "couldn't open import") {
		t.Errorf("an import outside the root: %v", err)
	}
}
