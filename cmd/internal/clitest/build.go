package clitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// builds holds the binaries built in this test process. A link of a tool
// that links Helm costs tens of seconds of CPU on a loaded machine, and a
// package's tests used to link the same binary a dozen times; now each
// tool is linked once per test process and every test runs that file.
var builds struct {
	sync.Mutex
	dir  string
	errs map[string]error // by package; nil once built
}

// BuildRelease builds the main package pkg (e.g. "./cmd/promote") of the
// module at root with the release stamps, once per test process, into a
// directory shared by the tools built this way (named after each tool,
// so that a shell finds them on PATH). Tests must not change the file.
// RemoveBuilds, from TestMain, deletes the directory.
func BuildRelease(t *testing.T, root, pkg string) string {
	t.Helper()
	builds.Lock()
	defer builds.Unlock()
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "clitest-bin-")
		if err != nil {
			t.Fatal(err)
		}
		builds.dir, builds.errs = dir, map[string]error{}
	}
	bin := filepath.Join(builds.dir, filepath.Base(pkg))
	err, done := builds.errs[pkg]
	if !done {
		err = buildRelease(root, pkg, bin)
		builds.errs[pkg] = err
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func buildRelease(root, pkg, bin string) error {
	ldflags := "-X " + buildinfo + ".version=" + Version + " -X " + buildinfo + ".commit=" + Commit + " -X " + buildinfo + ".date=" + Date
	cmd := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return nil
}

// RemoveBuilds deletes what BuildRelease built; TestMain calls it after
// the tests ran.
func RemoveBuilds() {
	builds.Lock()
	defer builds.Unlock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
		builds.dir, builds.errs = "", nil
	}
}
