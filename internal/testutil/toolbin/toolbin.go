// Package toolbin installs the real command-line tools that parity tests
// compare our in-process rendering against (helm 3, helm 4, kustomize), at
// pinned versions, from the Go module proxy. Each binary is built once per
// machine and kept in a cache directory, so only the first test run pays
// for the build; concurrent test processes wait on a lock file instead of
// building twice.
package toolbin

import (
	"crypto/sha256"
	"encoding/hex"
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
// kustomize for v3.6; helm 3 for releases before v3.5). kustomize v5.8.3,
// the one Argo CD v3.6.1 bundles, cannot be installed from the module
// proxy; v5.8.2 is the nearest that can.
//
// The helm ldflags are those of helm's release Makefile, so that `helm
// version` and .Capabilities say what the released binaries say: the
// full version and a clean tree, and for helm 3 the default Kubernetes
// version (1.37: v3.22.0 builds with k8s.io/client-go v0.37.0). Helm 4
// derives that default from its build info at run time (client-go
// v0.37.1 in v4.3.1 gives v1.37.0), so it needs no flag for it. The
// release commit is not in the module, so GitCommit stays empty.
var (
	Helm3 = Tool{Name: "helm", Pkg: "helm.sh/helm/v3/cmd/helm", Version: "v3.22.0",
		Ldflags: "-s -w -X helm.sh/helm/v3/internal/version.version=v3.22.0" +
			" -X helm.sh/helm/v3/internal/version.gitTreeState=clean" +
			" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=37" +
			" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=37"}
	Helm4 = Tool{Name: "helm", Pkg: "helm.sh/helm/v4/cmd/helm", Version: "v4.3.1",
		Ldflags: "-s -w -X helm.sh/helm/v4/internal/version.version=v4.3.1" +
			" -X helm.sh/helm/v4/internal/version.gitTreeState=clean"}
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
	dir := filepath.Join(root, tool.Name+"-"+strings.TrimPrefix(tool.Version, "v")+"-"+majorOf(tool.Pkg)+"-"+tool.flagsKey())
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
	// No -trimpath (helm's release builds use it): it changes only the
	// file paths recorded in the binary, and without it every package the
	// tool shares with this module's own graph (Kubernetes, the Helm SDK,
	// kustomize, the standard library, at the same versions) comes from
	// the build cache `make test` fills, instead of compiling again.
	args := []string{"install"}
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

// flagsKey tells builds with different ldflags apart in the cache, so a
// changed flag rebuilds the tool instead of reusing a stale binary.
func (t Tool) flagsKey() string {
	sum := sha256.Sum256([]byte(t.Ldflags))
	return hex.EncodeToString(sum[:4])
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
