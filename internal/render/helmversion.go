package render

import (
	"context"
	"runtime"
	"strings"

	chartutil3 "helm.sh/helm/v3/pkg/chartutil"
	common4 "helm.sh/helm/v4/pkg/chart/common"
)

// The Helm SDK versions in go.mod (a test keeps them so). They are what
// .Capabilities.HelmVersion.Version says, as in the released helm
// binaries of the same versions.
const (
	helm3Version = "v3.22.0"
	helm4Version = "v4.3.1"
)

// HelmFunc renders one `helm template` request; Helm and Helm4 are
// HelmFuncs.
type HelmFunc func(ctx context.Context, req Request) ([]byte, error)

// HelmFor returns the renderer of a Helm major (argo.HelmRequest's
// HelmMajor): Helm for 3, Helm4 for 4 and for 0, the major of the default
// Argo CD version.
func HelmFor(major int) HelmFunc {
	if major == 3 {
		return Helm
	}
	return Helm4
}

// Built from source, the SDKs report a truncated version ("v3.22") and,
// in test binaries, a Kubernetes client of v1.20 and no Go version; the
// released binaries that Argo CD runs report the full version and a clean
// tree. Renders must see what those binaries show, in tests too, so the
// defaults the client-only install copies are set once here. GitCommit
// stays empty: the release's commit is not in the module.
func init() {
	caps3 := &chartutil3.DefaultCapabilities.HelmVersion
	caps3.Version = helm3Version
	caps3.GitTreeState = "clean"
	caps3.GoVersion = runtime.Version()

	caps4 := &common4.DefaultCapabilities.HelmVersion
	caps4.Version = helm4Version
	caps4.GitTreeState = "clean"
	caps4.GoVersion = runtime.Version()
	caps4.KubeClientVersion = kubeClientVersion(DefaultKubeVersion())
}

// kubeClientVersion is "v1.37" for "v1.37.0": Helm 4 reports the minor of
// its Kubernetes client library.
func kubeClientVersion(kubeVersion string) string {
	parts := strings.SplitN(kubeVersion, ".", 3)
	if len(parts) < 2 {
		return kubeVersion
	}
	return parts[0] + "." + parts[1]
}
