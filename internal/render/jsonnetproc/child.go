package jsonnetproc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/google/go-jsonnet"
)

// child evaluates the job read from stdin and writes the result; the
// exit code is 0 whenever it could say how the evaluation ended.
func child() int {
	limit()
	in := bufio.NewReader(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	dec := json.NewDecoder(in)
	var job Job
	if err := dec.Decode(&job); err != nil {
		fmt.Fprintf(os.Stderr, "reading the job: %v\n", err)
		return 1
	}
	vm := jsonnet.MakeVM()
	vm.MaxStack = MaxStack
	for _, v := range job.TLAs {
		if v.Code {
			vm.TLACode(v.Name, v.Value)
		} else {
			vm.TLAVar(v.Name, v.Value)
		}
	}
	for _, v := range job.ExtVars {
		if v.Code {
			vm.ExtCode(v.Name, v.Value)
		} else {
			vm.ExtVar(v.Name, v.Value)
		}
	}
	imp := &importer{job: job, out: out, in: dec, cache: map[string]*entry{}}
	vm.Importer(imp)
	vm.SetTraceOut(traceWriter{out})
	res, err := vm.EvaluateFile(job.File)
	msg := message{Done: true, Result: res}
	if err != nil {
		msg = message{Done: true, Error: err.Error()}
	}
	if err := out.Encode(msg); err != nil {
		return 1
	}
	return 0
}

// limit bounds this process: its address space to what it has plus
// Memory, its CPU time to twice Timeout (the parent kills it at Timeout;
// this is for a parent that died), its stacks to Stack, one thread for Go
// code (a Jsonnet evaluation is sequential).
func limit() {
	runtime.GOMAXPROCS(1)
	debug.SetMaxStack(Stack)
	if vm := vmSize(); vm > 0 {
		lim := uint64(vm + Memory)
		_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
	}
	cpu := uint64(2 * Timeout.Seconds())
	_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpu, Max: cpu})
}

// vmSize is this process's address space in bytes (/proc/self/status
// VmSize); 0 if unknown, and then it is not limited.
func vmSize() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// importer is go-jsonnet's FileImporter search order over files the
// parent serves: next to the importing file, then each library path, the
// last one first. Contents are cached by path, as go-jsonnet requires of
// an importer (the same path must give the same Contents).
type importer struct {
	job   Job
	out   *json.Encoder
	in    *json.Decoder
	cache map[string]*entry
}

type entry struct {
	found    bool
	contents jsonnet.Contents
}

func (m *importer) Import(importedFrom, importedPath string) (jsonnet.Contents, string, error) {
	dir, _ := path.Split(importedFrom)
	found, c, at, err := m.try(dir, importedPath)
	for i := len(m.job.JPaths) - 1; err == nil && !found && i >= 0; i-- {
		found, c, at, err = m.try(m.job.JPaths[i], importedPath)
	}
	if err != nil {
		return jsonnet.Contents{}, "", err
	}
	if !found {
		return jsonnet.Contents{}, "", fmt.Errorf("couldn't open import %q: no match locally or in the Jsonnet library paths", importedPath)
	}
	return c, at, nil
}

func (m *importer) try(dir, importedPath string) (bool, jsonnet.Contents, string, error) {
	// Cleaned even when absolute: "/_repo/../etc/x" is /etc/x, outside
	// the repository, not a path of it.
	abs := path.Clean(importedPath)
	if !path.IsAbs(abs) {
		abs = path.Join(dir, importedPath)
	}
	if e, ok := m.cache[abs]; ok {
		return e.found, e.contents, abs, nil
	}
	e := &entry{}
	if rel, ok := strings.CutPrefix(abs, m.job.Root+"/"); ok && path.IsAbs(abs) {
		if err := m.out.Encode(message{Read: rel}); err != nil {
			return false, jsonnet.Contents{}, "", err
		}
		var a answer
		if err := m.in.Decode(&a); err != nil {
			return false, jsonnet.Contents{}, "", err
		}
		if a.Error != "" {
			return false, jsonnet.Contents{}, "", errors.New(a.Error)
		}
		if a.Found {
			e.found, e.contents = true, jsonnet.MakeContentsRaw(a.Data)
		}
	}
	m.cache[abs] = e
	return e.found, e.contents, abs, nil
}

// traceWriter sends std.trace's lines to the parent.
type traceWriter struct{ out *json.Encoder }

func (w traceWriter) Write(p []byte) (int, error) {
	if err := w.out.Encode(message{Trace: string(p)}); err != nil {
		return 0, err
	}
	return len(p), nil
}
