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

// k8sModuleVersion matches v0.MINOR of a k8s.io staging module, ignoring
// the patch and any pre-release or build suffix.
var k8sModuleVersion = regexp.MustCompile(`^v0\.(\d+)\.\d+`)

var defaultKubeVersion = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fallbackKubeVersion
	}
	return kubeVersionFromDeps(info.Deps)
})

// DefaultKubeVersion is the Kubernetes version renders assume when the
// request names none: the minor matching the k8s.io/client-go (or
// k8s.io/apimachinery) module linked into this binary, patch 0, e.g.
// v0.37.1 -> v1.37.0. That is what the released helm 3 and helm 4
// binaries default to (helm 3 through -ldflags, helm 4 from its build
// info); built from source, helm 3 and the SDKs report v1.20.0.
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
				return "v1." + m[1] + ".0"
			}
		}
	}
	return fallbackKubeVersion
}
