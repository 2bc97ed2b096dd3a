package toolbin

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Module returns the directory of a Go module version in the module
// cache, downloading it from the module proxy first if needed. Parity
// tests read real public Helm charts that ship inside Go modules (Helm's
// own test charts, cert-manager's and kyverno's charts) from there, so
// the repository never holds a copy. The directory is read-only.
func Module(t testing.TB, path, version string) string {
	t.Helper()
	dir, err := DownloadModule(path, version)
	if err != nil {
		t.Fatalf("module %s@%s for parity: %v", path, version, err)
	}
	return dir
}

// DownloadModule runs `go mod download -json path@version` outside any
// module and returns the extracted directory.
func DownloadModule(path, version string) (string, error) {
	tmp, err := os.MkdirTemp("", "toolbin-mod-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", "mod", "download", "-json", path+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=on")
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr != nil && err == nil {
		err = fmt.Errorf("parse go mod download output: %w", jerr)
	}
	if info.Error != "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", path, version, info.Error)
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("go mod download %s@%s: %w\n%s", path, version, err, ee.Stderr)
		}
		return "", fmt.Errorf("go mod download %s@%s: %w", path, version, err)
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no directory in %s", path, version, out)
	}
	return info.Dir, nil
}
