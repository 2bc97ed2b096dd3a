package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/testutil/endless"
)

// The runaway apps of a merge request, each one app of the fleet's qa env
// added at head: a chart archive holding a 1 GB file (the bound is 16 MiB), a chart whose
// template loops for hours (Helm's engine takes no context), a jsonnet
// program that never ends.
const runawayApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: runaway-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: SOURCE
  destination: {server: https://kubernetes.default.svc, namespace: edge}
`

// zerosChart packs chart name 1.0.0 with templates, and a values.yaml of
// size zeros streamed through gzip (1 GB packs to about 1 MB).
func zerosChart(t *testing.T, name string, size int64, templates string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	add := func(file string, data []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name + "/" + file, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	add("Chart.yaml", []byte("apiVersion: v2\nname: "+name+"\nversion: 1.0.0\n"))
	add("templates/cm.yaml", []byte(templates))
	if size > 0 {
		if err := tw.WriteHeader(&tar.Header{Name: name + "/values.yaml", Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		zeros := make([]byte, 1<<20)
		for left := size; left > 0; left -= int64(len(zeros)) {
			tw.Write(zeros[:min(left, int64(len(zeros)))])
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// runawayCharts is built once per test binary (packing 1 GB of zeros
// takes seconds).
var runawayCharts map[string][]byte

type runaway struct {
	name   string
	source func(charts string) string // the app's source; charts is the runaway chart repository's URL
	files  map[string]string          // more files of the fleet at head
	// started reports that the runaway engine is at work in process pid
	started func(r *chartRepo, pid int) bool
	// mayEndFirst: the engine's bound may refuse the app before the
	// signal comes (a fast machine refuses the huge archive at once)
	mayEndFirst bool
}

func runaways(t *testing.T) ([]runaway, map[string][]byte) {
	if runawayCharts == nil {
		runawayCharts = map[string][]byte{
			"huge-1.0.0.tgz": zerosChart(t, "huge", 1<<30, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"),
			"spin-1.0.0.tgz": zerosChart(t, "spin", 0,
				"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n{{- range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n"),
		}
	}
	charts := runawayCharts
	served := func(file string) func(r *chartRepo, pid int) bool {
		return func(r *chartRepo, pid int) bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.hits["/"+file] > 0
		}
	}
	return []runaway{
		{name: "huge archive", source: func(c string) string { return "{repoURL: " + c + ", chart: huge, targetRevision: 1.0.0}" },
			started: served("huge-1.0.0.tgz"), mayEndFirst: true},
		{name: "template loop", source: func(c string) string { return "{repoURL: " + c + ", chart: spin, targetRevision: 1.0.0}" },
			started: served("spin-1.0.0.tgz")},
		{name: "jsonnet loop", source: func(string) string {
			return "{repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/runaway}"
		}, files: map[string]string{"envs/qa/runaway/main.jsonnet": endless.JsonnetLoop},
			started: func(_ *chartRepo, pid int) bool { return hasChild(pid) }},
	}, charts
}

// hasChild reports whether process pid has a child (the jsonnet
// evaluator).
func hasChild(pid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, not ")"
		_, rest, _ := strings.Cut(string(stat), ") ")
		if f := strings.Fields(rest); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			return true
		}
	}
	return false
}

// checkRunawaysInterrupted: SIGTERM while the engine of each runaway app
// is at work ends the real binary within 2 s (5 s at most on a loaded
// machine), exit 1, the partial report written with the app listed as
// interrupted.
func checkRunawaysInterrupted(t *testing.T, bin string) {
	cases, charts := runaways(t)
	repo := newChartRepo(t, charts)
	for _, rc := range cases {
		t.Run(rc.name, func(t *testing.T) {
			f := newFleet(t)
			f.write(t, "argocd/qa/runaway.yaml", strings.Replace(runawayApp, "SOURCE", rc.source(repo.URL), 1))
			for name, content := range rc.files {
				f.write(t, name, content)
			}
			head := f.commit(t, "a runaway app")
			report := filepath.Join(t.TempDir(), "report.json")
			cmd := exec.Command(bin, "--repo", f.Dir, "--base", head+"~1", "--head", head, "--cache-dir", t.TempDir(),
				"-o", "json", "--output-file", report)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			ended := false // by itself, before the signal
			deadline := time.Now().Add(2 * time.Minute)
			for !ended && !rc.started(repo, cmd.Process.Pid) {
				select {
				case err = <-done:
					// a fast machine may fetch and refuse the huge archive
					// between two looks
					if !rc.mayEndFirst || !rc.started(repo, cmd.Process.Pid) {
						t.Fatalf("exited before its runaway app was at work: %v\n%s", err, errb.String())
					}
					ended = true
				case <-time.After(20 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("the runaway app never started")
				}
			}
			if !ended {
				time.Sleep(300 * time.Millisecond) // into the engine
				sent := time.Now()
				cmd.Process.Signal(syscall.SIGTERM)
				select {
				case err = <-done:
				case <-time.After(30 * time.Second):
					cmd.Process.Kill()
					t.Fatal("still running 30 s after SIGTERM")
				}
				took := time.Since(sent)
				t.Logf("exited %v after SIGTERM; %s", took.Round(time.Millisecond), strings.TrimSpace(errb.String()))
				if took > 5*time.Second {
					t.Errorf("took %v to stop; want under 2 s", took)
				}
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("exit %v; want 1", err)
			}
			if rc.mayEndFirst {
				return // refused before the signal, or interrupted: either way reported (checkHugeArchive)
			}
			checkInterruptedReport(t, report, "SIGTERM")
		})
	}
}

// checkHugeArchive: the 1 GB chart file fails its app, naming chart and
// version, while the process stays small (its peak RSS from wait4).
func checkHugeArchive(t *testing.T, bin string) {
	_, charts := runaways(t)
	repo := newChartRepo(t, charts)
	f := newFleet(t)
	f.write(t, "argocd/qa/runaway.yaml", strings.Replace(runawayApp, "SOURCE", "{repoURL: "+repo.URL+", chart: huge, targetRevision: 1.0.0}", 1))
	head := f.commit(t, "a chart bomb")
	cmd := exec.Command(bin, "--repo", f.Dir, "--base", head+"~1", "--head", head, "--cache-dir", t.TempDir(), "-o", "json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	t.Logf("%v, peak RSS %d MiB: %s", time.Since(start).Round(time.Millisecond), rss>>20, strings.TrimSpace(errb.String()))
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("exit %v; want 1 (an app failed)", err)
	}
	if !strings.Contains(out.String(), `env qa, app runaway-qa, chart huge version 1.0.0`) ||
		!strings.Contains(out.String(), `huge/values.yaml\": too large: more than 16 MiB decompressed`) {
		t.Errorf("the app's error does not name chart, version and file:\n%s", out.String())
	}
	if rss > 400<<20 {
		t.Errorf("peak RSS %d MiB reading a 1 GB chart file", rss>>20)
	}
}
