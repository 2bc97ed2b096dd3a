// Package toolbin installs the real command-line tools that parity tests
// compare our in-process rendering against (helm 3, helm 4, kustomize), at
// pinned versions, from the Go module proxy. Each binary is built once per
// machine and kept in a cache directory, so only the first test run pays
// for the build; concurrent test processes wait on a lock file instead of
// building twice.
package toolbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Tool is one pinned command: `go install Pkg@Version` with Ldflags.
type Tool struct {
	Name    string // binary name and cache key prefix
	Pkg     string // main package path
	Version string // module version
	// Ldflags are what the project's release builds set and `go install`
	// does not (version strings, default Kubernetes version), so the
	// binary reports what a released one reports.
	Ldflags string
}

// The pinned tools. Versions follow what Argo CD bundles (helm 4 and
// kustomize for v3.6; helm 3 for earlier releases). kustomize v5.8.3, the
// one Argo CD v3.6.1 bundles, cannot be installed from the module proxy;
// v5.8.2 is the nearest that can.
var (
	Helm3 = Tool{Name: "helm", Pkg: "helm.sh/helm/v3/cmd/helm", Version: "v3.22.0",
		Ldflags: "-X helm.sh/helm/v3/internal/version.version=v3.22.0"}
	Helm4 = Tool{Name: "helm", Pkg: "helm.sh/helm/v4/cmd/helm", Version: "v4.3.1",
		Ldflags: "-X helm.sh/helm/v4/internal/version.version=v4.3.1"}
	Kustomize = Tool{Name: "kustomize", Pkg: "sigs.k8s.io/kustomize/kustomize/v5", Version: "v5.8.2"}
)

// Dir is where installed tools live: $GITOPS_PROMOTE_TOOLS, else
// <user cache dir>/gitops-promote/tools.
func Dir() (string, error) {
	if d := os.Getenv("GITOPS_PROMOTE_TOOLS"); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no GITOPS_PROMOTE_TOOLS and no user cache dir: %w", err)
	}
	return filepath.Join(c, "gitops-promote", "tools"), nil
}

// Path returns the tool's binary, installing it first if needed; it fails
// the test (never skips) when the tool cannot be had.
func Path(t testing.TB, tool Tool) string {
	t.Helper()
	p, err := Install(tool)
	if err != nil {
		t.Fatalf("installing %s %s for parity: %v", tool.Name, tool.Version, err)
	}
	return p
}

// Install builds the tool into the cache unless it is there already and
// returns the binary's path.
func Install(tool Tool) (string, error) {
	root, err := Dir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, tool.Name+"-"+strings.TrimPrefix(tool.Version, "v")+"-"+majorOf(tool.Pkg))
	bin := filepath.Join(dir, tool.Name)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil // another process built it while we waited
	}
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	args := []string{"install", "-trimpath"}
	if tool.Ldflags != "" {
		args = append(args, "-ldflags", tool.Ldflags)
	}
	cmd := exec.Command("go", append(args, tool.Pkg+"@"+tool.Version)...)
	// Outside this module: the tool builds with its own go.mod.
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %w\n%s", tool.Pkg, tool.Version, err, out)
	}
	built := filepath.Join(tmp, filepath.Base(strings.TrimSuffix(tool.Pkg, "/"+majorOf(tool.Pkg))))
	if _, err := os.Stat(built); errors.Is(err, os.ErrNotExist) {
		built = filepath.Join(tmp, tool.Name)
	}
	if err := os.Rename(built, bin); err != nil {
		return "", fmt.Errorf("installing %s: %w", tool.Name, err)
	}
	return bin, nil
}

// majorOf is the /vN suffix of a package path ("v5" for kustomize/v5),
// or the second element of a helm.sh/helm/vN path.
func majorOf(pkg string) string {
	for _, part := range strings.Split(pkg, "/") {
		if len(part) > 1 && part[0] == 'v' && strings.Trim(part[1:], "0123456789") == "" {
			return part
		}
	}
	return "v0"
}

func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
