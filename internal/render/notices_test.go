package render

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// recorder is a slog handler keeping each record as "LEVEL msg".
type recorder struct {
	mu    *sync.Mutex
	lines *[]string
}

func newRecorder() recorder { return recorder{&sync.Mutex{}, &[]string{}} }

func (r recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.lines = append(*r.lines, rec.Level.String()+" "+rec.Message)
	return nil
}
func (r recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r recorder) WithGroup(string) slog.Handler      { return r }
func (r recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), *r.lines...)
}

// installLibrary makes a LibraryHandler the default for the test, its
// uncaptured records going to the returned recorder.
func installLibrary(t *testing.T) recorder {
	rest := newRecorder()
	prev := slog.Default()
	slog.SetDefault(slog.New(LibraryHandler(rest)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return rest
}

const plantedNotice = "Sup3r-S3cret-9k2"

// TestLibraryLogsBecomeNotices: what Helm (3 through log.Printf, 4
// through slog and log) logs while rendering an app reaches that
// render's Input.Log once, as a warning, with the value Helm quotes
// masked; nothing reaches the process's logger.
func TestLibraryLogsBecomeNotices(t *testing.T) {
	rest := installLibrary(t)
	chart := packRaw(t, writeChartDir(t, map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: top\nversion: 0.1.0\ndependencies:\n  - {name: sub, version: 1.0.0, import-values: [{child: nope, parent: x}]}\n",
		"values.yaml": "conf:\n  password: " + plantedNotice + "\n",
		// a template, so that both majors render something
		"templates/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: top}\n",
		"charts/sub/Chart.yaml":  "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
		"charts/sub/values.yaml": "a: 1\n",
	}))
	for _, major := range []int{3, 4} {
		log := newRecorder()
		req := &argo.Request{Env: "qa", App: "web", Kind: argo.KindHelm, Source: argo.Source{Chart: "top", TargetRevision: "0.1.0"},
			Helm: &argo.HelmRequest{Chart: argo.ChartRef{RepoURL: "https://charts.example.com", Name: "top", Version: "0.1.0"}, HelmMajor: major,
				Values: []byte("conf:\n  password: {nested: " + plantedNotice + "-user}\n")}}
		if _, err := Render(context.Background(), Input{Charts: chartSource(chart), Log: slog.New(log)}, req); err != nil {
			t.Fatalf("helm %d: %v", major, err)
		}
		got := strings.Join(log.got(), "\n")
		for _, w := range []string{"WARN destination for top.conf.password is a table. Ignoring non-table value (***)", "ImportValues missing table"} {
			if !strings.Contains(got, w) {
				t.Errorf("helm %d: notices lack %q:\n%s", major, w, got)
			}
		}
		if strings.Contains(got, plantedNotice) || strings.Count(got, "destination for top.conf.password") != 1 {
			t.Errorf("helm %d: notices show the value or repeat:\n%s", major, got)
		}
	}
	if r := rest.got(); len(r) != 0 {
		t.Errorf("records reached the default logger: %q", r)
	}
}

// TestKustomizeDeprecationsAreNotices: each deprecated field of each
// kustomization the build reads is one warning naming the file, in
// kustomize's words; the base it reaches too.
func TestKustomizeDeprecationsAreNotices(t *testing.T) {
	fsys := fstest.MapFS{
		"k/kustomization.yaml":      {Data: []byte("resources: [base]\ncommonLabels: {team: a}\n")},
		"k/base/kustomization.yaml": {Data: []byte("resources: [cm.yaml]\npatchesStrategicMerge: [p.yaml]\n")},
		"k/base/cm.yaml":            {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {a: b}\n")},
		"k/base/p.yaml":             {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {a: c}\n")},
	}
	log := newRecorder()
	req := &argo.Request{Env: "qa", App: "web", Kind: argo.KindKustomize, Source: argo.Source{Path: "k"}, Path: "k"}
	if _, err := Render(context.Background(), Input{FS: fsys, Log: slog.New(log)}, req); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"WARN kustomization k/kustomization.yaml: 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically.",
		"WARN kustomization k/base/kustomization.yaml: 'patchesStrategicMerge' is deprecated. Please use 'patches' instead. Run 'kustomize edit fix' to update your Kustomization automatically.",
	}
	if got := log.got(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range want {
		if !KustomizeStderrNotice("# Warning: " + strings.SplitN(w, ": ", 2)[1]) {
			t.Errorf("the library's own line for %q is not recognised", w)
		}
	}
	if KustomizeStderrNotice("# Warning: something else") {
		t.Error("any warning is taken for a deprecation notice")
	}
}

// std.trace writes to the VM's trace output, the process's stderr by
// default: it is a notice of the render, extVars masked.
func TestJsonnetTraceIsANotice(t *testing.T) {
	fsys := fstest.MapFS{"d/main.jsonnet": {Data: []byte("std.trace('token is ' + std.extVar('token'), [{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x'}}])")}}
	log := newRecorder()
	req := &argo.Request{Env: "qa", App: "cfg", Kind: argo.KindDirectory, Source: argo.Source{Path: "d"}, Path: "d",
		Directory: &argo.DirectoryRequest{Jsonnet: []byte("extVars: [{name: token, value: " + plantedNotice + "}]\n")}}
	if _, err := Render(context.Background(), Input{FS: fsys, Log: slog.New(log)}, req); err != nil {
		t.Fatal(err)
	}
	if got := log.got(); len(got) != 1 || got[0] != "INFO jsonnet TRACE: d/main.jsonnet:1 token is ***" {
		t.Errorf("notices %q", got)
	}
}

func TestLibraryLevel(t *testing.T) {
	for in, want := range map[string]string{
		"warning: skipped value":      "WARN skipped value",
		"Warning: Dependencies are":   "WARN Dependencies are",
		"WARNING: unresolved URN":     "WARN unresolved URN",
		"[INFO] Missing required":     "INFO Missing required",
		"info: skipping unknown hook": "INFO skipping unknown hook",
		"Failed to compile":           "INFO Failed to compile",
	} {
		l, msg := libraryLevel(slog.LevelInfo, in)
		if got := l.String() + " " + msg; got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	if l, _ := libraryLevel(slog.LevelError, "failed to compile"); l != slog.LevelWarn {
		t.Errorf("a library's error is %v, want a warning", l)
	}
}

func TestNoticeCleaners(t *testing.T) {
	helm := helmNoticeCleaner(Request{Values: []byte("password: " + plantedNotice + "\n")})
	for in, want := range map[string]string{
		"destination for a.b is a table. Ignoring non-table value (x)": "destination for a.b is a table. Ignoring non-table value (***)",
		"cannot overwrite table with non table for a.b (map[k:v])":     "cannot overwrite table with non table for a.b (***)",
		"skipped value for a.b: Not a table. " + plantedNotice:         "skipped value for a.b: Not a table. ***",
	} {
		if got := helm(in); got != want {
			t.Errorf("helm notice %q cleaned to %q, want %q", in, got, want)
		}
	}
	jsonnet := jsonnetNoticeCleaner(&argo.JsonnetOptions{ExtVars: []argo.JsonnetVar{{Name: "token", Value: plantedNotice}}})
	if got, want := jsonnet("TRACE: d/x.jsonnet:3 'token' is "+plantedNotice), "TRACE: d/x.jsonnet:3 'token' is ***"; got != want {
		t.Errorf("jsonnet notice cleaned to %q, want %q", got, want)
	}
}

// Renders running side by side each get their own library records, and
// only theirs: the goroutine ties a record to its render.
func TestLibraryNoticesStayWithTheirRender(t *testing.T) {
	rest := installLibrary(t)
	var wg sync.WaitGroup
	logs := make([]recorder, 8)
	errs := make([]error, len(logs))
	for i := range logs {
		logs[i] = newRecorder()
		key := fmt.Sprintf("key%d", i)
		chart := packRaw(t, writeChartDir(t, map[string]string{
			"Chart.yaml":        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
			"values.yaml":       "conf:\n  " + key + ": plain\n",
			"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		}))
		req := &argo.Request{Env: "qa", App: key, Kind: argo.KindHelm, Source: argo.Source{Chart: "c", TargetRevision: "0.1.0"},
			Helm: &argo.HelmRequest{Chart: argo.ChartRef{RepoURL: "https://charts.example.com", Name: "c", Version: "0.1.0"}, HelmMajor: 3 + i%2,
				Values: []byte("conf:\n  " + key + ": {a: 1}\n")}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if _, err := Render(context.Background(), Input{Charts: chartSource(chart), Log: slog.New(logs[i])}, req); err != nil {
					errs[i] = err
				}
			}
		}()
	}
	wg.Wait()
	for i, l := range logs {
		want := fmt.Sprintf("WARN destination for c.conf.key%d is a table. Ignoring non-table value (***)", i)
		got := l.got()
		if errs[i] != nil || len(got) != 5 || got[0] != want || got[4] != want {
			t.Errorf("render %d: %v, notices %q, want five times %q", i, errs[i], got, want)
		}
	}
	if r := rest.got(); len(r) != 0 {
		t.Errorf("records reached the default logger: %q", r)
	}
}

// A record logged outside any render reaches the default logger's next
// handler as one line, its level read from the text and what it quotes
// masked: there are no inputs to mask it with.
func TestLibraryRecordOutsideARender(t *testing.T) {
	rest := installLibrary(t)
	log.Printf("warning: token %q refused by https://user:pa55word@example.com/x", plantedNotice)
	slog.Info("debug-free", "k", "v")
	got := rest.got()
	if len(got) != 2 || got[0] != `WARN token "***" refused by https://***@example.com/x` || got[1] != "INFO debug-free k=v" {
		t.Errorf("records %q", got)
	}
}
