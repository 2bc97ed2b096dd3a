//go:build crashtest

package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The crash tests kill promote at each durable step it takes in a
// repository (every lock or temporary file created, write, rename, link,
// unlink and reflog append, its own and go-git's), through the fault hook
// of internal/git compiled in with -tags crashtest, and check that the next
// run repairs the clone and lands the promotion.

// crashBinary is promote built with the crashtest tag: PROMOTE_CRASH_AT=N
// kills it just before its N-th durable step, PROMOTE_CRASH_LOG lists
// the steps.
func crashBinary(t *testing.T) string {
	t.Helper()
	crashBuilt.once.Do(func() {
		if crashBuilt.dir, crashBuilt.err = os.MkdirTemp("", "promote-crash-"); crashBuilt.err != nil {
			return
		}
		crashBuilt.path = filepath.Join(crashBuilt.dir, "promote")
		cmd := exec.Command("go", "build", "-tags", "crashtest", "-o", crashBuilt.path, "./cmd/promote")
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			crashBuilt.err = fmt.Errorf("go build -tags crashtest: %v\n%s", err, out)
		}
	})
	if crashBuilt.err != nil {
		t.Fatal(crashBuilt.err)
	}
	return crashBuilt.path
}

// crashScenario is a clone whose remote has moved since it was cloned (a
// teammate pushed a commit), so promote fetches, commits, rebuilds on the
// new tip (or, on a conflict, moves the branch to it) and pushes: every
// kind of step there is.
type crashScenario struct {
	proto  string // holds repo/ (the clone) and remote.git/
	theirs string // the teammate's commit, the remote tip before promote
	args   []string
	// conflict: the first run stops on a conflict and a second one lands.
	conflict string // what the first run's message says the rerun will do
}

// newCrashScenario makes the scenario; theirs edits the teammate's clone
// before the teammate pushes.
func newCrashScenario(t *testing.T, theirs func(t *testing.T, dir string), args ...string) *crashScenario {
	t.Helper()
	f := newFleet(t)
	other := f.clone(t, "other", "Other Pipeline")
	theirs(t, other)
	proto := t.TempDir()
	for _, dir := range []string{f.Dir, f.Remote} {
		if out, err := exec.Command("cp", "-a", dir, proto).CombinedOutput(); err != nil {
			t.Fatalf("cp -a: %v: %s", err, out)
		}
	}
	return &crashScenario{proto: proto, theirs: gitRun(t, f.Remote, "rev-parse", "main"), args: args}
}

// copy returns a fresh copy of the clone and its remote.
func (s *crashScenario) copy(t *testing.T) (clone, remote string) {
	t.Helper()
	root := copyRepo(t, s.proto, "scenario")
	clone, remote = filepath.Join(root, "repo"), filepath.Join(root, "remote.git")
	gitRun(t, clone, "config", "remote.origin.url", "file://"+remote)
	return clone, remote
}

// steps runs the scenario uninterrupted with the step log and returns it.
func (s *crashScenario) steps(t *testing.T) []string {
	t.Helper()
	clone, _ := s.copy(t)
	log := filepath.Join(t.TempDir(), "steps")
	if r := runPromoteWith(t, crashBinary(t), clone, processEnv(t, "PROMOTE_CRASH_LOG="+log), s.args...); r.code != 0 && s.conflict == "" {
		t.Fatalf("uninterrupted run: exit %d\n%s", r.code, r.errOut)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// landed is what the remote must hold after a successful run: one
// commit on the teammate's, with this tree.
type landed struct{ parent, tree string }

func (s *crashScenario) reference(t *testing.T) landed {
	t.Helper()
	clone, remote := s.copy(t)
	if r := s.rerun(t, clone); r.code != 0 {
		t.Fatalf("reference run: exit %d\n%s", r.code, r.errOut)
	}
	ref := landed{parent: s.theirs, tree: gitRun(t, remote, "rev-parse", "main^{tree}")}
	if got := remoteTip(t, remote); got.parent != ref.parent {
		t.Fatalf("reference run landed on %s, want the teammate's %s", got.parent, s.theirs)
	}
	return ref
}

// tip is the remote main's commit, parents and tree.
type tip struct{ commit, parent, tree string }

func remoteTip(t *testing.T, remote string) tip {
	t.Helper()
	f := strings.Split(gitRun(t, remote, "log", "-1", "--format=%H%n%P%n%T", "main"), "\n")
	if len(f) != 3 {
		t.Fatalf("remote main: %q", f)
	}
	return tip{commit: f[0], parent: f[1], tree: f[2]}
}

// TestCrashAtEveryStepOfApplyPush kills apply --push at each of its
// durable steps on the rebuild path, then runs it again: the second run
// must land the promotion on top of the teammate's commit, and leave a
// clean status, no lock, no temporary file, no journal, and a repository
// that git fsck --strict accepts.
func TestCrashAtEveryStepOfApplyPush(t *testing.T) {
	s := newCrashScenario(t, tunePreprodLogging, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push")
	s.sweep(t)
}

// TestCrashAtEveryStepOfConflictReset kills pin --push at each step of a
// run that loses a conflict (a teammate pinned the same field) and moves
// the branch to the remote tip. The next run either reports the conflict
// with what re-running will do, or lands; the one after lands.
func TestCrashAtEveryStepOfConflictReset(t *testing.T) {
	s := newCrashScenario(t, func(t *testing.T, dir string) {
		editAndPush(t, dir, "versions/qa.yaml", `imageTag: "v3.2.0"`, `imageTag: "v3.3.0"`, "pin api v3.3.0")
	}, "pin", "--env", "qa", "ledger-node.api.imageTag=v3.4.0", "--skip-chart-check", "--push")
	s.conflict = "re-running the same command will set ledger-node.api.imageTag from v3.3.0 to v3.4.0 on top of it"
	s.sweep(t)
}

// sweep kills the scenario's command at each of its steps in turn.
func (s *crashScenario) sweep(t *testing.T) {
	ref := s.reference(t)
	steps := s.steps(t)
	t.Logf("%d kill points: %s", len(steps), stepKinds(steps))
	for i := 1; i <= len(steps); i++ {
		t.Run(fmt.Sprintf("step%02d", i), func(t *testing.T) {
			t.Parallel()
			s.crashAndRecover(t, i, steps[i-1], ref)
		})
	}
}

// crashAndRecover kills the scenario's command just before step n, checks
// what the kill left on the remote, runs the command again and checks the
// outcome.
func (s *crashScenario) crashAndRecover(t *testing.T, n int, step string, ref landed) {
	clone, remote := s.copy(t)
	cmd, _, stderr := promoteCmdWith(t, crashBinary(t), clone, processEnv(t, "PROMOTE_CRASH_AT="+strconv.Itoa(n)), s.args...)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
		t.Fatalf("killed before %q: want death by SIGKILL, got %v\n%s", step, err, stderr)
	}
	// Whatever the kill hit, the remote holds the teammate's tip or the
	// whole promotion on top of it.
	if got := remoteTip(t, remote); got.commit != s.theirs && (got.parent != ref.parent || got.tree != ref.tree) {
		t.Errorf("after the kill, remote main is %+v: neither the teammate's tip nor the promotion on it", got)
	}
	r := s.rerun(t, clone)
	if r.code != 0 {
		t.Fatalf("rerun after a kill before %q: exit %d\n%s", step, r.code, r.errOut)
	}
	got := remoteTip(t, remote)
	if got.parent != ref.parent || got.tree != ref.tree {
		t.Errorf("remote main is %+v, want one commit on %s with tree %s", got, ref.parent, ref.tree)
	}
	if head := gitRun(t, clone, "rev-parse", "HEAD"); head != got.commit {
		t.Errorf("local HEAD %s, remote main %s", head, got.commit)
	}
	if fsck := gitRun(t, remote, "fsck", "--strict", "--no-dangling", "--no-progress"); fsck != "" {
		t.Errorf("remote: git fsck --strict: %s", fsck)
	}
	checkCleanClone(t, clone)
	if t.Failed() {
		t.Logf("killed before step %d: %s\nrerun stderr: %s", n, step, r.errOut)
	}
}

// rerun runs the scenario's command; in a conflict scenario a run that
// reports the conflict (saying what re-running will do) is run once more.
func (s *crashScenario) rerun(t *testing.T, clone string) result {
	t.Helper()
	r := runPromote(t, clone, processEnv(t), s.args...)
	if r.code != 0 && s.conflict != "" {
		if !strings.Contains(r.errOut, s.conflict) {
			t.Errorf("run stopped without saying %q:\n%s", s.conflict, r.errOut)
		}
		r = runPromote(t, clone, processEnv(t), s.args...)
	}
	return r
}

// checkCleanClone: clean status, and nothing of a killed run left in the
// git directory or the work tree.
func checkCleanClone(t *testing.T, clone string) {
	t.Helper()
	if st := gitRun(t, clone, "status", "--porcelain", "--untracked-files=all", "--ignored"); st != "" {
		t.Errorf("status not clean:\n%s", st)
	}
	if fsck := gitRun(t, clone, "fsck", "--strict", "--no-dangling", "--no-progress"); fsck != "" {
		t.Errorf("git fsck --strict: %s", fsck)
	}
	var left []string
	filepath.WalkDir(filepath.Join(clone, ".git"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if strings.HasSuffix(name, ".lock") || strings.HasPrefix(name, "tmp_") || strings.HasPrefix(name, "gitops-promote.journal") {
			left = append(left, strings.TrimPrefix(p, clone+"/"))
		}
		return nil
	})
	packs, _ := filepath.Glob(filepath.Join(clone, ".git", "objects", "pack", "*.idx"))
	for _, idx := range packs {
		if _, err := os.Stat(strings.TrimSuffix(idx, ".idx") + ".pack"); err != nil {
			left = append(left, strings.TrimPrefix(idx, clone+"/")+" (without its pack)")
		}
	}
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// stepKinds counts steps by operation, for the log.
func stepKinds(steps []string) string {
	count := map[string]int{}
	for _, s := range steps {
		if f := strings.Fields(s); len(f) >= 2 {
			count[f[1]]++
		}
	}
	var out []string
	for k, v := range count {
		out = append(out, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// promoteCmdWith is promoteCmd for another binary.
func promoteCmdWith(t *testing.T, bin, dir string, env []string, args ...string) (*exec.Cmd, *strings.Builder, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

func runPromoteWith(t *testing.T, bin, dir string, env []string, args ...string) result {
	t.Helper()
	cmd, stdout, stderr := promoteCmdWith(t, bin, dir, env, args...)
	code := exitStatus(t, cmd.Run())
	return result{code: code, out: stdout.String(), errOut: stderr.String()}
}

// readLines reads a file's lines.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// TestCrashPointsCoverEverySyscall runs the apply --push scenario once
// under strace and matches every file-system change the process made in
// the clone (each rename, link, unlink and each file opened for writing)
// with a kill point of the step log: a step the sweep above never kills
// at would show up here. It also proves there is no in-place write of a
// ref or the index: those are lock files renamed into place.
func TestCrashPointsCoverEverySyscall(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Fatalf("this test needs strace (apt-get install strace): %v", err)
	}
	s := newCrashScenario(t, tunePreprodLogging, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push")
	clone, _ := s.copy(t)
	dir := t.TempDir()
	stepLog, trace := filepath.Join(dir, "steps"), filepath.Join(dir, "trace")
	// -ff: one file per thread, so that calls of threads running at once
	// (go-git's and the runtime's) are never split into "unfinished" and
	// "resumed" lines
	args := append([]string{"-ff", "-qq", "-s", "4096", "-e", "signal=none", "-o", trace,
		"-e", "trace=rename,renameat,renameat2,link,linkat,unlink,unlinkat,open,openat,creat", crashBinary(t)}, s.args...)
	if r := runPromoteWith(t, strace, clone, processEnv(t, "PROMOTE_CRASH_LOG="+stepLog), args...); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.errOut)
	}
	steps := map[string]int{}
	renameSteps := 0
	for _, line := range readLines(t, stepLog) {
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 {
			t.Fatalf("step log line %q", line)
		}
		p := f[2]
		if !filepath.IsAbs(p) { // go-git's paths are relative to the git directory
			p = filepath.Join(clone, ".git", p)
		}
		steps[f[1]+" "+strings.TrimSuffix(p, "_")]++
		if f[1] == "rename" {
			renameSteps++
		}
	}
	renames, unhooked := 0, 0
	traces, err := filepath.Glob(trace + ".*")
	if err != nil || len(traces) == 0 {
		t.Fatalf("no strace output %s.*: %v", trace, err)
	}
	var lines []string
	for _, f := range traces {
		lines = append(lines, readLines(t, f)...)
	}
	for _, line := range lines {
		key, ok := syscallKey(line, clone+"/")
		if !ok {
			continue
		}
		if strings.HasPrefix(key, "rename ") {
			renames++
		}
		if steps[key] == 0 {
			unhooked++
			t.Errorf("no kill point for: %s", line)
			continue
		}
		steps[key]--
	}
	if renames != renameSteps {
		t.Errorf("%d renames in the clone, %d rename kill points", renames, renameSteps)
	}
	t.Logf("%d renames, every one a kill point; %d unhooked file-system changes", renames, unhooked)
}

// syscallKey turns a successful strace line that changes a file under
// root into the step that must precede it: "rename <dest>", "link
// <new>", "unlink <path>", "create <lock or temp name>", "write
// <journal temp>" or "append <reflog>". ok is false for other lines.
func syscallKey(line, root string) (string, bool) {
	if !strings.HasSuffix(strings.TrimSpace(line), "= 0") && !regexpFD.MatchString(line) {
		return "", false // failed calls change nothing
	}
	paths := regexpPath.FindAllStringSubmatch(line, -1)
	var in []string
	for _, m := range paths {
		in = append(in, m[1])
	}
	call, _, ok := strings.Cut(line, "(") // with -ff no pid comes first
	if !ok {
		return "", false
	}
	call = call[strings.LastIndexByte(call, ' ')+1:]
	last := func() string { return in[len(in)-1] }
	if len(in) == 0 || !strings.HasPrefix(last(), root) {
		return "", false
	}
	switch call {
	case "rename", "renameat", "renameat2":
		return "rename " + last(), true
	case "link", "linkat":
		return "link " + last(), true
	case "unlink", "unlinkat":
		return "unlink " + last(), true
	}
	if !strings.Contains(line, "O_WRONLY") && !strings.Contains(line, "O_RDWR") && !strings.Contains(line, "O_CREAT") {
		return "", false // a read
	}
	p := last()
	base := filepath.Base(p)
	switch {
	case strings.HasSuffix(p, ".lock"):
		return "create " + p, true
	case strings.HasPrefix(base, "tmp_") && strings.Contains(base, "_gp"):
		return "create " + p[:strings.Index(p, "_gp")], true
	case strings.Contains(base, ".tmp-") && strings.HasPrefix(base, "gitops-promote.journal"):
		return "write " + p, true
	case strings.HasPrefix(base, ".") && strings.Contains(base, ".tmp-"):
		return "create " + filepath.Join(filepath.Dir(p), strings.TrimPrefix(base[:strings.Index(base, ".tmp-")], ".")) + ".tmp", true
	case strings.Contains(line, "O_APPEND"):
		return "append " + p, true
	}
	return "write-in-place " + p, true // never a step: reported as unhooked
}

var (
	regexpPath = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	regexpFD   = regexp.MustCompile(`\) = [0-9]+$`)
)
