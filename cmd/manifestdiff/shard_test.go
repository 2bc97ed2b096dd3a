package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A run sharded over N parallel jobs (CI_NODE_INDEX/CI_NODE_TOTAL, as
// GitLab CI sets them, or --shard) and merged gives the unsharded report,
// byte for byte, in every format, with the same exit code: on a scenario
// with changed, added, removed and unchanged apps, generated values,
// shared changes, an app that fails to render and one not rendered. Every
// app is in exactly one shard, a shard's report is the same on every run,
// and the order the shards are given in does not matter.
func TestShardedRunMergesToTheWholeReport(t *testing.T) {
	f := newFleet(t)
	f.write(t, "charts/gen/Chart.yaml", "apiVersion: v2\nname: gen\nversion: 0.1.0\n")
	f.write(t, "charts/gen/values.yaml", "level: a\n")
	f.write(t, "charts/gen/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gen}\n"+
		"data: {level: {{ .Values.level | quote }}, token: {{ randAlphaNum 12 | quote }}}\n")
	f.write(t, "argocd/prod/app-gen.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ledger-gen-prod, namespace: argocd}
spec:
  project: ledger-prod
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: charts/gen}
  destination: {server: https://kubernetes.default.svc, namespace: ledger-gen}
`)
	f.commit(t, "an in-repo chart with a generated token")
	base, _ := f.scenario(t)
	f.edit(t, "charts/gen/values.yaml", "level: a", "level: b")                                   // changed, with a generated field
	f.edit(t, "argocd/qa/app-gateway.yaml", "targetRevision: '2.1.0'", "targetRevision: '9.9.9'") // fails to render
	f.write(t, "envs/qa/other/kustomization.yaml", "resources: []\n")
	f.write(t, "argocd/qa/app-other.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ledger-other-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/other, plugin: {name: x}}
  destination: {server: https://kubernetes.default.svc, namespace: ledger-other}
`)
	head := f.commit(t, "a chart version never published; a plugin app")
	cache := t.TempDir()
	args := []string{"--base", base, "--head", head, "--cache-dir", cache}
	whole := map[string]string{}
	for _, format := range formats {
		r := f.run(t, nil, append(args, "-o", format)...)
		if r.code != 1 || r.out == "" {
			t.Fatalf("unsharded -o %s: exit %d, want 1 (one app fails) and a report: %s", format, r.code, r.errOut)
		}
		whole[format] = r.out
	}
	doc := parseJSON(t, whole["json"])
	wholeApps := map[string]bool{}
	for _, a := range doc.Apps {
		wholeApps[a.Env+"/"+a.Name] = true
	}
	for _, want := range []string{"error", "added", "removed", "changed", "unchanged"} {
		if doc.Summary.ByStatus[want] == 0 {
			t.Fatalf("the scenario has no %s app: %v", want, doc.Summary.ByStatus)
		}
	}
	if !strings.Contains(whole["json"], `"generated"`) || !strings.Contains(whole["json"], `"notRendered"`) {
		t.Fatal("the scenario has no generated field or no app not rendered")
	}
	for _, n := range []int{2, 3, 4} {
		var files []string
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			var reports [2]string
			for round := range reports { // twice: a shard is the same on every run
				file := filepath.Join(t.TempDir(), "shard-"+strconv.Itoa(i)+".json")
				var r result
				if i%2 == 0 { // both ways of choosing the shard
					r = f.run(t, map[string]string{"CI_NODE_INDEX": strconv.Itoa(i), "CI_NODE_TOTAL": strconv.Itoa(n)},
						append(args, "-o", "json", "--output-file", file)...)
				} else {
					r = f.run(t, nil, append(args, "-o", "json", "--output-file", file, "--shard", strconv.Itoa(i)+"/"+strconv.Itoa(n))...)
				}
				if r.code != 0 && r.code != 1 {
					t.Fatalf("shard %d/%d: exit %d: %s", i, n, r.code, r.errOut)
				}
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				reports[round] = string(data)
				if round == 0 {
					files = append(files, file)
				}
			}
			if reports[0] != reports[1] {
				t.Errorf("shard %d/%d differs between two runs", i, n)
			}
			for _, a := range parseJSON(t, reports[0]).Apps {
				seen[a.Env+"/"+a.Name]++
			}
		}
		for app := range wholeApps {
			if seen[app] != 1 {
				t.Errorf("N=%d: %s is in %d shards, want 1", n, app, seen[app])
			}
		}
		if len(seen) != len(wholeApps) {
			t.Errorf("N=%d: the shards hold %d apps, the whole run %d", n, len(seen), len(wholeApps))
		}
		reversed := slices.Clone(files)
		slices.Reverse(reversed)
		for _, format := range formats {
			for _, order := range [][]string{files, reversed} {
				r := runMergeArgs(t, append([]string{"merge", "-o", format}, order...)...)
				if r.code != 1 {
					t.Fatalf("merge -o %s: exit %d, want 1 as the whole run: %s", format, r.code, r.errOut)
				}
				if diff := cmp.Diff(whole[format], r.out); diff != "" {
					t.Errorf("N=%d, -o %s: merged report differs (-whole +merged):\n%s", n, format, diff)
				}
			}
		}
	}
}

// What a shard refuses, and what merge refuses, each with one line and
// nothing written.
func TestShardAndMergeErrors(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	args := []string{"--base", base, "--head", head}
	dir := t.TempDir()
	shard := func(i int) string {
		file := filepath.Join(dir, "s"+strconv.Itoa(i)+".json")
		if r := f.run(t, nil, append(args, "-o", "json", "--output-file", file, "--shard", strconv.Itoa(i)+"/2")...); r.code != 0 {
			t.Fatalf("shard %d: %s", i, r.errOut)
		}
		return file
	}
	s1, s2 := shard(1), shard(2)
	whole := filepath.Join(dir, "whole.json")
	if r := f.run(t, nil, append(args, "-o", "json", "--output-file", whole)...); r.code != 0 {
		t.Fatal(r.errOut)
	}
	ci := map[string]string{"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "2"}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"bad --shard", nil, append(args, "--shard", "3/2"), "--shard 3/2: want INDEX/TOTAL"},
		{"shard writes markdown", ci, append(args, "-o", "markdown"), "a shard writes -o json"},
		{"shard posts", ci, append(args, "-o", "json", "--post"), "--post from the job that runs `manifestdiff merge`"},
		{"merge nothing", nil, []string{"merge"}, "merge needs the shards' JSON reports"},
		{"missing shard", nil, []string{"merge", s1}, "missing shard 2/2"},
		{"shard twice", nil, []string{"merge", s1, s1, s2}, "shard 1/2 given twice"},
		{"not a shard", nil, []string{"merge", s1, whole}, "not a shard's report"},
		{"no such file", nil, []string{"merge", s1, filepath.Join(dir, "nope.json")}, "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r result
			if len(tc.args) > 0 && tc.args[0] == "merge" {
				r = runMergeArgs(t, tc.args...)
			} else {
				r = f.run(t, tc.env, tc.args...)
			}
			if r.code != 1 || r.out != "" || !strings.Contains(r.errOut, tc.want) || strings.Count(strings.TrimSpace(r.errOut), "\n") > 0 {
				t.Errorf("exit %d, stdout %q, stderr %q: want 1, nothing, one line with %q", r.code, r.out, r.errOut, tc.want)
			}
		})
	}
	// --shard 1/1 in a parallel job diffs every app, in any format.
	if r := f.run(t, ci, append(args, "-o", "markdown", "--shard", "1/1")...); r.code != 0 || !strings.Contains(r.out, "ledger-node-g") {
		t.Errorf("--shard 1/1: exit %d, stderr %s", r.code, r.errOut)
	}
}

// runMergeArgs runs the command in process with exactly args (no --repo:
// merge reads no repository).
func runMergeArgs(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	ios := &ioStreams{Out: &out, ErrOut: &errOut}
	code := exitCode(ios, runArgs(context.Background(), args, ios, func(string) string { return "" }))
	return result{code, out.String(), errOut.String()}
}
