package render

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/testutil/endless"
)

// TestRunawaySourcesFailTheirApp: a source past a bound is its app's one
// line error, with a sentinel to branch on, and this process goes on.
func TestRunawaySourcesFailTheirApp(t *testing.T) {
	big := bytes.Repeat([]byte("    a line of a ConfigMap's file, again and again\n"), (MaxAppBytes/40)+1000)
	cm := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  file: |\n")
	tests := []struct {
		name  string
		files fstest.MapFS
		is    error
		text  string
	}{
		{"manifests past 64 MiB", fstest.MapFS{"d/a.yaml": {Data: append(cm, big...)}}, ErrTooLarge, "rendered more than 64 MiB"},
		{"jsonnet building a 10 GB array", fstest.MapFS{"d/a.jsonnet": {Data: []byte(`std.length(std.makeArray(1000000000, function(i) i))`)}},
			ErrTooLarge, "a.jsonnet: evaluating jsonnet: too large: it needed more than 1024 MiB of memory"},
		{"jsonnet recursing without end", fstest.MapFS{"d/a.jsonnet": {Data: []byte(`local f(n) = 1 + f(n + 1); f(0)`)}},
			nil, "max stack frames exceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := &argo.Request{Env: "qa", App: "runaway", Kind: argo.KindDirectory, Path: "d",
				Source: argo.Source{Path: "d"}, Directory: &argo.DirectoryRequest{}}
			start := time.Now()
			_, err := Render(context.Background(), Input{FS: tc.files}, req)
			t.Logf("%v: %v", time.Since(start).Round(time.Millisecond), err)
			if err == nil || !strings.Contains(err.Error(), "env qa, app runaway") || !strings.Contains(err.Error(), tc.text) ||
				tc.is != nil && !errors.Is(err, tc.is) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v; want one line naming the app, %q", err, tc.text)
			}
		})
	}
}

// TestJsonnetHonoursContext: a jsonnet evaluation that never ends stops
// with the context's cause when it is cancelled.
func TestJsonnetHonoursContext(t *testing.T) {
	cause := errors.New("interrupted by SIGTERM")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(300*time.Millisecond, func() { cancel(cause) })
	req := &argo.Request{Env: "qa", App: "loop", Kind: argo.KindDirectory, Path: "d", Source: argo.Source{Path: "d"},
		Directory: &argo.DirectoryRequest{}}
	in := Input{FS: fstest.MapFS{"d/a.jsonnet": {Data: []byte(endless.JsonnetLoop)}}}
	start := time.Now()
	_, err := Render(ctx, in, req)
	if d := time.Since(start); !errors.Is(err, cause) || d > 3*time.Second {
		t.Fatalf("%v after %v; want the cause at once", err, d)
	}
}
