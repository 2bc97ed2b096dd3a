package render

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// chartSource fetches one chart, whatever is asked.
type chartSource []byte

func (c chartSource) Fetch(context.Context, string, string, string) ([]byte, error) { return c, nil }

// panickyCharts stands for a chart source that panics: no input found
// makes the Helm 3 SDK (v3.22.0) panic, so the Helm 3 path is reached
// through the fetch inside its render.
type panickyCharts struct{}

func (panickyCharts) Fetch(context.Context, string, string, string) ([]byte, error) {
	var m map[string]int
	m["boom"]++ // a nil map write: a runtime panic, as in the engines
	return nil, nil
}

// panickyRepos is a kustomize remote base opener that panics: kustomize
// (api v0.21.2) panicked on none of the inputs tried.
type panickyRepos struct{}

func (panickyRepos) OpenRef(context.Context, string, string) (fs.FS, string, error) {
	panic("remote base lookup exploded")
}

// helmV3Panic is an apiVersion v3 chart declaring more dependencies than
// charts/ holds: Helm 4.3.1 indexes past its dependency list on it.
func helmV3Panic(t *testing.T) []byte {
	return packRaw(t, writeChartDir(t, map[string]string{
		"Chart.yaml":            "apiVersion: v3\nname: top\nversion: 0.1.0\ndependencies:\n  - {name: sub, version: 0.1.0}\n  - {name: gone, version: 0.1.0}\n",
		"charts/sub/Chart.yaml": "apiVersion: v3\nname: sub\nversion: 0.1.0\n",
	}))
}

// TestRenderRecoversPanics: a panic in any engine below Render is that
// render's error, naming env, app, source, engine, the panic and where it
// happened, on one line; the process goes on.
func TestRenderRecoversPanics(t *testing.T) {
	helm := func(major int) *argo.HelmRequest {
		return &argo.HelmRequest{Chart: argo.ChartRef{RepoURL: "https://charts.example.com", Name: "top", Version: "0.1.0"}, HelmMajor: major}
	}
	kustomization := fstest.MapFS{"k/kustomization.yaml": {Data: []byte("resources:\n- https://github.com/example/base?ref=v1\n")}}
	for _, tc := range []struct {
		name string
		in   Input
		req  *argo.Request
		want []string
	}{
		{"helm 4 on an apiVersion v3 chart", Input{Charts: chartSource(helmV3Panic(t))},
			&argo.Request{Env: "qa", App: "web", Kind: argo.KindHelm, Source: argo.Source{Chart: "top", TargetRevision: "0.1.0"}, Helm: helm(4)},
			[]string{"env qa, app web, chart top version 0.1.0: helm 4 panicked: runtime error: index out of range [1] with length 1 (at helm.sh/helm/v4/pkg/chart.(*v3Accessor).MetaDependencies, common.go:"}},
		{"helm 3, panicking inside its render", Input{Charts: panickyCharts{}},
			&argo.Request{Env: "qa", App: "web", Kind: argo.KindHelm, Source: argo.Source{Chart: "top", TargetRevision: "0.1.0"}, Helm: helm(3)},
			[]string{"env qa, app web, chart top version 0.1.0: helm 3 panicked: assignment to entry in nil map (at github.com/gitops-promote/gitops-promote/internal/render.panickyCharts.Fetch, panics_test.go:"}},
		{"kustomize", Input{FS: kustomization, Repos: panickyRepos{}},
			&argo.Request{Env: "prod", App: "api", Kind: argo.KindKustomize, Source: argo.Source{Path: "k"}, Path: "k"},
			[]string{"env prod, app api, kustomize source k: kustomize panicked: remote base lookup exploded (at github.com/gitops-promote/gitops-promote/internal/render.panickyRepos.OpenRef, panics_test.go:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Render(context.Background(), tc.in, tc.req)
			if err == nil || out != nil {
				t.Fatalf("Render = %q, %v; want a panic error", out, err)
			}
			if !errors.Is(err, ErrPanic) {
				t.Errorf("error %v does not wrap ErrPanic", err)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine ") || strings.Contains(msg, "/root/") {
				t.Errorf("message is not one clean line: %q", msg)
			}
		})
	}
}

// go-jsonnet recovers its own panics and returns them with a goroutine
// dump; the app's error keeps the panic and its place, on one line.
func TestJsonnetCrashIsOneLine(t *testing.T) {
	fsys := fstest.MapFS{"d/main.jsonnet": {Data: []byte("[{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x'}, data: {a: std.toString(std.removeAt([1], 5))}}]")}}
	req := &argo.Request{Env: "qa", App: "cfg", Kind: argo.KindDirectory, Source: argo.Source{Path: "d"}, Path: "d", Directory: &argo.DirectoryRequest{}}
	_, err := Render(context.Background(), Input{FS: fsys}, req)
	want := `go-jsonnet panicked: runtime error: slice bounds out of range [:5] with capacity 1 (at github.com/google/go-jsonnet.builtinRemoveAt, builtins.go:`
	if err == nil || !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Render: %v\nwant it to contain %q and wrap ErrPanic", err, want)
	}
	if msg := err.Error(); strings.Contains(msg, "goroutine") || strings.Contains(msg, "debug.Stack") || len(msg) > 400 {
		t.Errorf("the goroutine dump is still there: %q", msg)
	}
}

func TestDumpSite(t *testing.T) {
	dump := "goroutine 9 [running]:\nruntime/debug.Stack()\n\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\n" +
		"github.com/google/go-jsonnet.(*VM).Evaluate.func1()\n\t/m/go-jsonnet@v0.22.0/vm.go:193 +0x3d\n" +
		"panic({0x3e77b80?, 0x2e4ba8e83920?})\n\t/usr/local/go/src/runtime/panic.go:860 +0x13a\n" +
		"runtime.goPanicSliceAcap(0x5, 0x1)\n\t/usr/local/go/src/runtime/panic.go:141 +0x18\n" +
		"github.com/google/go-jsonnet.(*binaryBuiltin).evalCall(0x2e4ba87cc3f0, {{0x2e4ba8f794e0, 0x2, 0x2}, {0x608a4c0, 0x0, 0x0}, 0x0}, 0x2e4ba8bc0500)\n" +
		"\t/m/go-jsonnet@v0.22.0/builtins.go:2649 +0x24f\n"
	if got, want := dumpSite(dump), "github.com/google/go-jsonnet.(*binaryBuiltin).evalCall, builtins.go:2649"; got != want {
		t.Errorf("dumpSite = %q, want %q", got, want)
	}
	if got := dumpSite("no panic here\n\tx.go:1\n"); got != "" {
		t.Errorf("dumpSite without panic = %q", got)
	}
}
