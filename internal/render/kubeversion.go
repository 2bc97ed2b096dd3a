package render

import (
	"regexp"
	"runtime/debug"
	"sync"
)

// fallbackKubeVersion matches the k8s.io modules in go.mod (a test keeps
// it so). It is used when the build info lists no modules, as in test
// binaries of library packages.
const fallbackKubeVersion = "v1.37.0"

// k8sModuleVersion matches v0.MINOR.PATCH of a k8s.io staging module,
// ignoring any pre-release or build suffix.
var k8sModuleVersion = regexp.MustCompile(`^v0\.(\d+)\.(\d+)`)

var defaultKubeVersion = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fallbackKubeVersion
	}
	return kubeVersionFromDeps(info.Deps)
})

// DefaultKubeVersion is the Kubernetes version renders assume when the
// request names none: the release matching the k8s.io/client-go (or
// k8s.io/apimachinery) module linked into this binary, e.g. v0.37.0 ->
// v1.37.0. Helm's own default is only right in release builds, which set
// it with -ldflags; built from source it reports v1.20.0.
func DefaultKubeVersion() string {
	return defaultKubeVersion()
}

func kubeVersionFromDeps(deps []*debug.Module) string {
	for _, path := range []string{"k8s.io/client-go", "k8s.io/apimachinery"} {
		for _, d := range deps {
			if d.Path != path {
				continue
			}
			if d.Replace != nil {
				d = d.Replace
			}
			if m := k8sModuleVersion.FindStringSubmatch(d.Version); m != nil {
				return "v1." + m[1] + "." + m[2]
			}
		}
	}
	return fallbackKubeVersion
}
