//go:build bundled

package toolbin

import (
	"os/exec"
	"strings"
	"testing"
)

// TestInstall builds (or finds) each pinned tool and runs its version
// command, so a wrong package path or ldflag fails here first. The helm
// lines are what the released binaries print, less the commit.
func TestInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds real tools; run without -short")
	}
	for _, tc := range []struct {
		tool Tool
		args []string
		want string
	}{
		{Helm3, []string{"version"}, `{Version:"v3.22.0", GitCommit:"", GitTreeState:"clean", GoVersion:"go`},
		{Helm4, []string{"version"}, `{Version:"v4.3.1", GitCommit:"", GitTreeState:"clean", GoVersion:"go`},
		{Helm4, []string{"version"}, `KubeClientVersion:"v1.37"}`},
		{Kustomize, []string{"version"}, ""},
	} {
		bin := Path(t, tc.tool)
		out, err := exec.Command(bin, tc.args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", bin, tc.args, err, out)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%s %v = %q, want it to contain %q", bin, tc.args, out, tc.want)
		}
	}
	// make bench's baseline runs the helm 3 built here, not a second build
	out, err := exec.Command("../../../scripts/tools.sh", "helm").Output()
	if got, want := strings.TrimSpace(string(out)), Path(t, Helm3); err != nil || got != want {
		t.Errorf("scripts/tools.sh helm = %q (%v), want %s", got, err, want)
	}
}
