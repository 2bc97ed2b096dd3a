//go:build crashtest

package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// pins are eight distinct fields, four per environment, each a valid move
// (no downgrade, exact versions, chart versions the example charts have).
var pins = []struct{ env, key, value string }{
	{"qa", "ledger-node.api.imageTag", "v3.3.0"},
	{"qa", "ledger-node.worker.imageTag", "v3.3.1"},
	{"qa", "ledger-node.worker.replicas", "3"},
	{"qa", "gateway.imageTag", "v1.11"},
	{"preprod", "ledger-node.api.chartVersion", "1.4.0"},
	{"preprod", "ledger-node.worker.chartVersion", "0.9.2"},
	{"preprod", "gateway.chartVersion", "2.1.0"},
	{"preprod", "ledger-node.api.imageTag", "v3.2.0"},
}

// TestConcurrentPinPushAllLand is the acceptance test: eight
// `promote pin --push` processes, each in its own clone, released at the
// same moment against one remote that refuses non-fast-forward updates.
// Every one must land exactly once as a single-parent commit on a linear
// history that never drops a commit another process pushed.
func TestConcurrentPinPushAllLand(t *testing.T) {
	for round := range 2 { // twice, to shake out flakiness
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
			f := newFleet(t)
			gitRun(t, f.Remote, "config", "receive.denyNonFastForwards", "true")
			gitRun(t, f.Remote, "config", "receive.denyDeletes", "true")
			gitRun(t, f.Remote, "config", "core.logAllRefUpdates", "always")
			old := gitRun(t, f.Remote, "rev-parse", "main")

			cmds := make([]*exec.Cmd, len(pins))
			outs := make([][2]*bytes.Buffer, len(pins))
			for i, p := range pins {
				dir := f.clone(t, fmt.Sprintf("clone%d", i), fmt.Sprintf("Pipeline%d Bot", i))
				cmd, stdout, stderr := promoteCmd(t, dir, processEnv(t), "pin", "--push", "--skip-chart-check", "--output", "json",
					"--env", p.env, p.key+"="+p.value)
				cmds[i], outs[i] = cmd, [2]*bytes.Buffer{stdout, stderr}
			}
			// All goroutines wait on start, so the eight processes are
			// exec'd together rather than one clone-setup apart.
			start := make(chan struct{})
			errs := make([]error, len(pins))
			var wg sync.WaitGroup
			for i, cmd := range cmds {
				wg.Go(func() {
					<-start
					errs[i] = cmd.Run()
				})
			}
			close(start)
			wg.Wait()
			results := make([]result, len(pins))
			for i, err := range errs {
				results[i] = result{exitStatus(t, err), outs[i][0].String(), outs[i][1].String()}
			}

			attempts := map[int]int{}
			var pushed []string
			for i, r := range results {
				if r.code != 0 {
					t.Errorf("pin %s %s: exit %d\nstderr: %s", pins[i].env, pins[i].key, r.code, r.errOut)
					continue
				}
				res := decodeResult(t, r)
				if !res.Pushed || res.Commit == "" || res.UpToDate {
					t.Errorf("pin %s %s: result %+v, want pushed with a commit", pins[i].env, pins[i].key, res)
				}
				attempts[res.Attempts]++
				pushed = append(pushed, res.Commit)
			}
			if t.Failed() {
				t.FailNow()
			}
			t.Logf("push attempts per process (attempts: processes): %v", attempts)
			checkLinearHistory(t, f.Remote, old, pushed)
			checkPinnedValues(t, f.Remote)
		})
	}
}

// checkLinearHistory: the remote moved from old by exactly one
// single-parent commit per pin, old is still in the history (nothing was
// rewritten), and every commit a process reported pushing is in it.
func checkLinearHistory(t *testing.T, remote, old string, pushed []string) {
	t.Helper()
	if n := gitRun(t, remote, "rev-list", "--count", old+"..main"); n != fmt.Sprint(len(pins)) {
		t.Errorf("%s new commits on main, want %d", n, len(pins))
	}
	if merges := gitRun(t, remote, "rev-list", "--min-parents=2", "main"); merges != "" {
		t.Errorf("merge commits on main: %s", merges)
	}
	if fp := gitRun(t, remote, "rev-list", "--first-parent", "--count", old+"..main"); fp != fmt.Sprint(len(pins)) {
		t.Errorf("first-parent chain from main has %s commits after the old tip, want %d", fp, len(pins))
	}
	gitRun(t, remote, "merge-base", "--is-ancestor", old, "main") // fails the test if not
	history := map[string]bool{}
	for _, c := range strings.Fields(gitRun(t, remote, "rev-list", "main")) {
		history[c] = true
	}
	for _, c := range pushed {
		if !history[c] {
			t.Errorf("commit %s was reported pushed but is not in main's history (overwritten?)", c)
		}
	}
	// The remote's reflog has every tip main had: one update per pin, each
	// still in the history.
	tips := strings.Fields(gitRun(t, remote, "reflog", "show", "--format=%H", "refs/heads/main"))
	if len(tips) != len(pins) {
		t.Errorf("main was updated %d times, want %d", len(tips), len(pins))
	}
	for _, c := range tips {
		if !history[c] {
			t.Errorf("main once pointed at %s, which is no longer in its history", c)
		}
	}
	// One commit per pin, none twice: the subjects name the pinned field.
	got := strings.Split(gitRun(t, remote, "log", "--format=%s", old+"..main"), "\n")
	var want []string
	for _, p := range pins {
		want = append(want, fmt.Sprintf("chore(%s): pin %s [skip ci]", p.env, p.key))
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commit subjects on main (-want +got):\n%s", diff)
	}
}

// checkPinnedValues reads the versions files at the remote tip and finds
// every pinned value.
func checkPinnedValues(t *testing.T, remote string) {
	t.Helper()
	got, want := map[string]string{}, map[string]string{}
	for _, p := range pins {
		want[p.env+" "+p.key] = p.value
	}
	for _, env := range []string{"qa", "preprod"} {
		var doc map[string]any
		src := gitRun(t, remote, "show", "main:versions/"+env+".yaml")
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatalf("versions/%s.yaml at the remote tip: %v", env, err)
		}
		for _, p := range pins {
			if p.env == env {
				got[env+" "+p.key] = lookup(doc, p.key)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values at the remote tip (-want +got):\n%s", diff)
	}
}

// lookup follows a dotted key through nested maps; the component names
// contain no dots of their own.
func lookup(doc map[string]any, key string) string {
	var cur any = doc
	for _, part := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[part]
	}
	if cur == nil {
		return ""
	}
	return fmt.Sprint(cur)
}
