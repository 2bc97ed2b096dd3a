package manifestdiff

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/render"
)

// boom panics as a bug would: a runtime error.
func boom() {
	var m map[string]int
	m["boom"]++
}

// TestOneAppsPanicIsItsError: a panic outside render.Render, while one
// app's inputs are read, its sources resolved (argo) or what it rendered
// parsed (diff), is that app's error, naming env, app and where it
// happened, on one line; the run goes on and every other app is reported
// as without the panic. A message that cleaning cannot go through again
// (it resolves and parses too) is withheld, never shown uncleaned.
func TestOneAppsPanicIsItsError(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).edit("envs/qa/common.yaml", "queue: ledger-qa", "queue: ledger-qa-2").m
	const victim = "ledger-node-b-worker-qa"
	want, _, err := run(t, base, head, 2)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus := statuses(want, "")
	if wantStatus["qa/"+victim] != "changed" {
		t.Fatalf("%s is %q without a panic, want changed", victim, wantStatus["qa/"+victim])
	}
	wantStatus["qa/"+victim] = "error"
	for _, tc := range []struct {
		name   string
		inject func() func()
		want   []string
	}{
		{"reading its inputs", func() func() {
			orig := inputsKey
			inputsKey = func(a argo.App, fsys fs.FS, repoURL, rev string) (string, error) {
				if a.Name == victim {
					boom()
				}
				return orig(a, fsys, repoURL, rev)
			}
			return func() { inputsKey = orig }
		}, []string{"env qa, app " + victim + ": reading its inputs panicked: assignment to entry in nil map (at "}},
		{"resolving a source", func() func() {
			orig := resolveApp
			resolveApp = func(a argo.App, ctx context.Context, o argo.AppOptions) (*argo.Resolved, error) {
				if a.Name == victim {
					boom()
				}
				return orig(a, ctx, o)
			}
			return func() { resolveApp = orig }
		}, []string{"env qa, app " + victim + ": resolving its sources panicked (at ", "; its message is withheld: cleaning it of the app's inputs panicked (at "}},
		{"parsing what it rendered", func() func() {
			orig := parseManifests
			parseManifests = func(m []byte, ns string, t *render.Tracking) ([]diff.Resource, error) {
				if bytes.Contains(m, []byte("name: "+victim)) {
					boom()
				}
				return orig(m, ns, t)
			}
			return func() { parseManifests = orig }
		}, []string{"env qa, app " + victim + ": diffing panicked (at ", "; its message is withheld: cleaning it of the app's inputs panicked (at "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.inject()()
			rep, _, err := run(t, base, head, 2)
			if !errors.Is(err, ErrRender) || !strings.Contains(err.Error(), "1 app failed") {
				t.Errorf("run error %v, want 1 app failed to render", err)
			}
			if diff := cmp.Diff(wantStatus, statuses(rep, "")); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			for _, a := range rep.Apps {
				if a.Name != victim {
					if a.Error != "" {
						t.Errorf("%s/%s: error %q", a.Env, a.Name, a.Error)
					}
					continue
				}
				for _, w := range append(tc.want, "manifestdiff.boom, panics_test.go:") {
					if !strings.Contains(a.Error, w) {
						t.Errorf("error %q lacks %q", a.Error, w)
					}
				}
				if strings.Contains(a.Error, "\n") || strings.Contains(a.Error, "goroutine") {
					t.Errorf("error is not one line: %q", a.Error)
				}
			}
		})
	}
}

// A panic while discovering an env's apps fails the run with env and
// revision named, as a discovery error does, instead of killing it.
func TestDiscoveryPanicFailsTheRun(t *testing.T) {
	orig := discoverApps
	defer func() { discoverApps = orig }()
	discoverApps = func(fsys fs.FS, cfg *config.Config, env string, opt argo.DiscoverOptions) ([]argo.App, error) {
		if env == "preprod" {
			boom()
		}
		return orig(fsys, cfg, env, opt)
	}
	base := exampleFleet(t)
	_, _, err := run(t, base, base, 2)
	if err == nil || !strings.Contains(err.Error(), "env preprod at ") || !strings.Contains(err.Error(), "discovering its apps panicked: assignment to entry in nil map (at ") {
		t.Fatalf("run error %v, want the discovery panic with env and revision", err)
	}
}
