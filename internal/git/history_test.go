package git

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestFirstParentLogAndShallow(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(dir, "init", "-q", "-b", "main", src)
	for i := range 5 {
		run(src, "commit", "-q", "--allow-empty", "-m", "c"+string(rune('0'+i)), "-m", "Promoted-From: qa@x")
	}
	r, err := Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	head, _ := r.Head()
	var subjects []string
	if err := r.FirstParentLog(head.Hash, 3, func(e LogEntry) bool {
		subjects = append(subjects, strings.SplitN(e.Message, "\n", 2)[0])
		return true
	}); err != nil || strings.Join(subjects, ",") != "c4,c3,c2" {
		t.Errorf("bounded log: %v %v", subjects, err)
	}
	subjects = nil
	if err := r.FirstParentLog(head.Hash, 100, func(e LogEntry) bool {
		subjects = append(subjects, strings.SplitN(e.Message, "\n", 2)[0])
		return e.Message[:2] != "c3"
	}); err != nil || len(subjects) != 2 {
		t.Errorf("stopped log: %v %v", subjects, err)
	}
	// A shallow clone of depth 2 ends with ErrShallow.
	clone := filepath.Join(dir, "clone")
	run(dir, "clone", "-q", "--depth", "2", "file://"+src, clone)
	rc, err := Open(clone)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	n := 0
	err = rc.FirstParentLog(plumbing.NewHash(run(clone, "rev-parse", "HEAD")), 100, func(LogEntry) bool { n++; return true })
	if !errors.Is(err, ErrShallow) || n != 2 {
		t.Errorf("shallow clone: read %d commits, err %v; want 2 and ErrShallow", n, err)
	}
}
