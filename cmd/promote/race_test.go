package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clone makes a second work tree of the fleet's remote, as another
// pipeline or colleague would have.
func (f *fleet) clone(t *testing.T, name, user string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(f.Dir), name)
	gitRun(t, filepath.Dir(f.Dir), "clone", "-q", "file://"+f.Remote, dir)
	gitRun(t, dir, "config", "user.name", user)
	gitRun(t, dir, "config", "user.email", strings.ToLower(strings.Fields(user)[0])+"@example.com")
	return dir
}

func editAndPush(t *testing.T, dir, path, old, new, msg string) {
	t.Helper()
	p := filepath.Join(dir, path)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "commit", "-q", "-am", msg)
	gitRun(t, dir, "push", "-q", "origin", "main")
}

func TestPushRetriesOnTopOfConcurrentCommit(t *testing.T) {
	f := newFleet(t)
	other := f.clone(t, "other", "Other Pipeline")
	editAndPush(t, other, "envs/preprod/common.yaml", "logLevel: debug", "logLevel: warn", "tune preprod logging")
	theirs := gitRun(t, f.Remote, "rev-parse", "main")

	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if !strings.Contains(r.errOut, "rebuilding the promotion on it") || !strings.Contains(r.out, "attempts: 1") {
		t.Errorf("want a rebuild before the first push, got\n%s%s", r.out, r.errOut)
	}
	head := gitRun(t, f.Remote, "rev-parse", "main")
	if parent := gitRun(t, f.Remote, "rev-parse", "main~1"); parent != theirs {
		t.Errorf("promotion parent = %s, want the concurrent commit %s", parent, theirs)
	}
	if merges := gitRun(t, f.Remote, "rev-list", "--merges", "main"); merges != "" {
		t.Errorf("merge commits on main: %s", merges)
	}
	if local := gitRun(t, f.Dir, "rev-parse", "HEAD"); local != head {
		t.Errorf("local HEAD %s, remote %s", local, head)
	}
	if st := gitRun(t, f.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not in step with HEAD:\n%s", st)
	}
	if !strings.Contains(f.read(t, "envs/preprod/common.yaml"), "logLevel: warn") {
		t.Errorf("the concurrent change is not in the work tree")
	}
}

func TestPushConflictNamesFieldAndAuthor(t *testing.T) {
	f := newFleet(t)
	other := f.clone(t, "other", "Alice Hotfix")
	editAndPush(t, other, "versions/preprod.yaml", `imageTag: "v3.1.4"`, `imageTag: "v3.1.5"`, "hotfix api image")
	theirs := gitRun(t, f.Remote, "rev-parse", "main")

	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--push")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; out %q", r.code, r.out)
	}
	for _, want := range []string{"ledger-node.api.imageTag", `"v3.1.5"`, "Alice Hotfix", "hotfix api image",
		"nothing was pushed, and your branch now matches origin/main",
		"re-running the same command will", "set ledger-node.api.imageTag from v3.1.5 to v3.2.0"} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("error %q does not mention %q", r.errOut, want)
		}
	}
	if got := gitRun(t, f.Remote, "rev-parse", "main"); got != theirs {
		t.Errorf("remote moved to %s", got)
	}
	if got := gitRun(t, f.Dir, "rev-parse", "HEAD"); got != theirs {
		t.Errorf("local HEAD %s, want the remote tip %s without the refused commit", got, theirs)
	}
	if st := gitRun(t, f.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not in step with HEAD:\n%s", st)
	}
	if n := strings.Count(r.errOut, "field changed concurrently"); n != 1 {
		t.Errorf("want the error on exactly one line, got %d: %q", n, r.errOut)
	}
}
