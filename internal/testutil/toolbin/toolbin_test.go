package toolbin

import (
	"os/exec"
	"strings"
	"testing"
)

// TestInstall builds (or finds) each pinned tool and runs its version
// command, so a wrong package path or ldflag fails here first.
func TestInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds real tools; run without -short")
	}
	for _, tc := range []struct {
		tool Tool
		args []string
		want string
	}{
		{Helm3, []string{"version", "--short"}, "v3.22.0"},
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
}
