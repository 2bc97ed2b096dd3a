package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Without --base, the diff base comes from GitLab's MR variable, else the
// merge-base with origin/main; with neither there is nothing sane to
// compare against, so the run stops with one clear line.
func TestDefaultBase(t *testing.T) {
	f := newFleet(t)
	first := gitRun(t, f.Dir, "rev-parse", "HEAD")
	// origin/main is the base commit; the MR branch adds the scenario.
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitRun(t, f.Dir, "init", "-q", "--bare", "-b", "main", remote)
	gitRun(t, f.Dir, "remote", "add", "origin", "file://"+remote)
	gitRun(t, f.Dir, "push", "-q", "origin", "main")
	gitRun(t, f.Dir, "checkout", "-q", "-b", "mr")
	base, head := f.scenario(t)
	if base != first {
		t.Fatalf("scenario base %s is not the pushed commit %s", base, first)
	}
	// main moves on after the branch point: a plain diff against
	// origin/main would then show changes the MR did not make.
	gitRun(t, f.Dir, "checkout", "-q", "main")
	f.edit(t, "envs/prod/gateway/values.yaml", "replicas: 3", "replicas: 4")
	f.commit(t, "unrelated change on main")
	gitRun(t, f.Dir, "push", "-q", "origin", "main")
	gitRun(t, f.Dir, "checkout", "-q", "mr")
	gitRun(t, f.Dir, "fetch", "-q", "origin")

	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		wantBase string
	}{
		{"merge-base with origin/main", nil, nil, "merge-base(origin/main, HEAD)"},
		{"GitLab MR diff base", map[string]string{"CI_MERGE_REQUEST_DIFF_BASE_SHA": base}, nil, base},
		{"--base wins over the variable", map[string]string{"CI_MERGE_REQUEST_DIFF_BASE_SHA": "no-such-rev"}, []string{"--base", base}, base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.run(t, tt.env, append(tt.args, "-o", "json")...)
			if r.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
			}
			doc := parseJSON(t, r.out)
			if doc.Base != tt.wantBase || doc.Head != "HEAD" {
				t.Errorf("compared %q with %q, want %q with HEAD", doc.Base, doc.Head, tt.wantBase)
			}
			if diff := cmp.Diff(scenarioStatuses, doc.statuses()); diff != "" {
				t.Errorf("app statuses (-want +got):\n%s", diff)
			}
		})
	}
	if head != gitRun(t, f.Dir, "rev-parse", "HEAD") {
		t.Fatal("the branch moved")
	}
}

func TestNoBaseNoOriginMain(t *testing.T) {
	f := newFleet(t)
	f.scenario(t)
	r := f.run(t, map[string]string{"CI_MERGE_REQUEST_DIFF_BASE_SHA": ""})
	if r.code != 1 || r.out != "" {
		t.Fatalf("exit %d, stdout %q: want 1 and no report", r.code, r.out)
	}
	if strings.Count(r.errOut, "\n") != 1 || !strings.Contains(r.errOut, "origin/main") || !strings.Contains(r.errOut, "--base") {
		t.Errorf("want one line naming origin/main and --base, got %q", r.errOut)
	}
}

// The diff is between commits: uncommitted edits, staged or not, and
// untracked files never leak into either side.
func TestWorkTreeIgnored(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	clean := f.run(t, nil, "--base", base, "--head", head, "-o", "json")

	f.edit(t, "versions/qa.yaml", `chartVersion: "1.4.0"`, `chartVersion: "1.3.0"`)
	f.edit(t, "envs/prod/common.yaml", "logLevel: info", "logLevel: trace")
	gitRun(t, f.Dir, "add", "envs/prod/common.yaml")
	f.write(t, "envs/qa/nodes/node-z/values-api.yaml", "api: {nodeId: z}\n")
	f.remove(t, "envs/prod/nodes/node-e")
	dirty := f.run(t, nil, "--base", base, "--head", head, "-o", "json")
	if clean.code != 0 || dirty.code != 0 {
		t.Fatalf("exit %d / %d; stderr:\n%s%s", clean.code, dirty.code, clean.errOut, dirty.errOut)
	}
	if diff := cmp.Diff(clean.out, dirty.out); diff != "" {
		t.Errorf("work tree edits changed the report (-clean +dirty):\n%s", diff)
	}
	// Same with the default --head (HEAD, not the work tree).
	if r := f.run(t, nil, "--base", base, "-o", "json"); parseJSON(t, r.out).Head != "HEAD" ||
		!cmp.Equal(scenarioStatuses, parseJSON(t, r.out).statuses()) {
		t.Errorf("default --head: exit %d, report:\n%s", r.code, r.out)
	}
}

// Revisions are given the ways people type them.
func TestRevisionSyntax(t *testing.T) {
	f := newFleet(t)
	base, head := f.scenario(t)
	gitRun(t, f.Dir, "tag", "v1", base)
	for _, rev := range [][2]string{{base[:7], head[:12]}, {"HEAD~1", "HEAD"}, {"main^", "main"}, {"v1", "HEAD"}} {
		t.Run(rev[0]+".."+rev[1], func(t *testing.T) {
			r := f.run(t, nil, "--base", rev[0], "--head", rev[1], "-o", "json")
			if r.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
			}
			if diff := cmp.Diff(scenarioStatuses, parseJSON(t, r.out).statuses()); diff != "" {
				t.Errorf("app statuses (-want +got):\n%s", diff)
			}
		})
	}
	r := f.run(t, nil, "--base", "no-such-branch", "-o", "json")
	if r.code != 1 || r.out != "" || !strings.Contains(r.errOut, "--base no-such-branch") {
		t.Errorf("unknown --base: exit %d, stdout %q, stderr %q", r.code, r.out, r.errOut)
	}
}
