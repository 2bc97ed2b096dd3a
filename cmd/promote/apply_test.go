package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// normalize hides what differs between runs: the loopback port of the
// chart server and commit hashes that depend on it.
func normalize(f *fleet, s string) string {
	s = strings.ReplaceAll(s, f.Charts.URL, "http://CHARTS")
	s = regexp.MustCompile(`index [0-9a-f]{7,}\.\.[0-9a-f]{7,}`).ReplaceAllString(s, "index <blob>..<blob>")
	return regexp.MustCompile(`\b([0-9a-f]{40}|[0-9a-f]{12})\b`).ReplaceAllString(s, "<sha>")
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestPlanGolden(t *testing.T) {
	f := newFleet(t)
	before := f.snapshot(t)
	r := f.run(t, nil, "plan", "--from", "qa", "--to", "preprod")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	golden(t, "plan-qa-preprod.txt", normalize(f, r.out))
	if after := f.snapshot(t); after != before {
		t.Errorf("plan wrote something: %+v -> %+v", before, after)
	}
	if *f.Requests != 0 {
		t.Errorf("plan asked the chart repository %d times; only apply checks charts", *f.Requests)
	}
	j := f.run(t, nil, "plan", "--from", "qa", "--to", "preprod", "--output", "json")
	var obj map[string]any
	if err := json.Unmarshal([]byte(j.out), &obj); err != nil {
		t.Fatalf("json: %v\n%s", err, j.out)
	}
	golden(t, "plan-qa-preprod.json", normalize(f, j.out))
}

func TestApplyCommitsOnlyChangedValues(t *testing.T) {
	f := newFleet(t)
	base := gitRun(t, f.Dir, "rev-parse", "HEAD")
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if got := gitRun(t, f.Dir, "rev-parse", "HEAD~1"); got != base {
		t.Fatalf("HEAD~1 = %s, want the old HEAD %s", got, base)
	}
	numstat := gitRun(t, f.Dir, "diff", "--numstat", "HEAD~1", "HEAD")
	// 10 values on 8 lines: the gateway's flow mapping holds two of them
	want := "1\t1\targocd/preprod/app-gateway.yaml\n2\t2\targocd/preprod/appset-nodes.yaml\n5\t5\tversions/preprod.yaml"
	if numstat != want {
		t.Errorf("numstat:\n%s\nwant:\n%s", numstat, want)
	}
	golden(t, "apply-qa-preprod.commit", normalize(f, gitRun(t, f.Dir, "show", "--format=%an <%ae>%n%B", "HEAD")))
	if st := gitRun(t, f.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean after apply:\n%s", st)
	}
	if fsck := gitRun(t, f.Dir, "fsck", "--strict"); strings.Contains(fsck, "error") {
		t.Errorf("fsck: %s", fsck)
	}
	if *f.Requests == 0 {
		t.Errorf("apply did not look the chart versions up")
	}
	if got := gitRun(t, f.Remote, "rev-parse", "main"); got != base {
		t.Errorf("apply without --push moved the remote")
	}
	head := gitRun(t, f.Dir, "rev-parse", "HEAD")
	again := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod")
	if again.code != 0 || !strings.Contains(again.out, "already up to date") {
		t.Errorf("second apply: exit %d, out %q, err %q", again.code, again.out, again.errOut)
	}
	if gitRun(t, f.Dir, "rev-parse", "HEAD") != head {
		t.Errorf("second apply made a commit")
	}
}

func TestApplyPush(t *testing.T) {
	f := newFleet(t)
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push", "--output", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	var res resultJSON
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatal(err)
	}
	head := gitRun(t, f.Dir, "rev-parse", "HEAD")
	if !res.Pushed || res.Commit != head || res.Attempts != 1 || res.Remote != "origin" || res.Branch != "main" {
		t.Errorf("result = %+v, want pushed %s in 1 attempt to origin/main", res, head)
	}
	if got := gitRun(t, f.Remote, "rev-parse", "main"); got != head {
		t.Errorf("remote main = %s, want %s", got, head)
	}
}
