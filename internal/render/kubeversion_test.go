package render

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

func TestKubeVersionFromDeps(t *testing.T) {
	mod := func(path, version string) *debug.Module { return &debug.Module{Path: path, Version: version} }
	for _, tc := range []struct {
		name string
		deps []*debug.Module
		want string
	}{
		{"client-go", []*debug.Module{mod("k8s.io/apimachinery", "v0.36.1"), mod("k8s.io/client-go", "v0.35.2")}, "v1.35.0"},
		{"apimachinery only", []*debug.Module{mod("k8s.io/apimachinery", "v0.36.1")}, "v1.36.0"},
		{"pre-release", []*debug.Module{mod("k8s.io/client-go", "v0.38.0-alpha.1")}, "v1.38.0"},
		{"replaced", []*debug.Module{{Path: "k8s.io/client-go", Version: "v0.30.0",
			Replace: mod("example.com/fork", "v0.33.4")}}, "v1.33.0"},
		{"unparsable", []*debug.Module{mod("k8s.io/client-go", "(devel)")}, fallbackKubeVersion},
		{"none", nil, fallbackKubeVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kubeVersionFromDeps(tc.deps); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestDefaultKubeVersion checks the result against go.mod's client-go.
// Test binaries of library packages carry no module list in their build
// info, so this also proves the hard-coded fallback is current.
func TestDefaultKubeVersion(t *testing.T) {
	got := DefaultKubeVersion()
	if got == "v1.20.0" {
		t.Fatal("DefaultKubeVersion is Helm's source-build default v1.20.0")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/client-go").Output()
	if err != nil {
		t.Fatalf("go list k8s.io/client-go: %v", err)
	}
	version := strings.TrimSpace(string(out))
	minor := strings.Split(strings.TrimPrefix(version, "v0."), ".")[0]
	if want := "v1." + minor + ".0"; got != want {
		t.Errorf("DefaultKubeVersion() = %s, want %s (client-go %s)", got, want, version)
	}
}
