package config

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultArgoVersion is the newest stable Argo CD minor release: what
// manifestdiff renders like when the config names none.
const DefaultArgoVersion = "3.6"

// Tracking methods, as Argo CD's application.resourceTrackingMethod.
const (
	TrackingAnnotation         = "annotation"
	TrackingLabel              = "label"
	TrackingAnnotationAndLabel = "annotation+label"
	TrackingNone               = "none"
)

// DefaultInstanceLabelKey is Argo CD's application.instanceLabelKey.
const DefaultInstanceLabelKey = "app.kubernetes.io/instance"

// ArgoCD describes the Argo CD installation the repository deploys with:
// manifestdiff renders what that version would.
type ArgoCD struct {
	// Version is "MAJOR.MINOR" (a patch and a leading "v" are accepted);
	// "" means DefaultArgoVersion. It selects, for instance, the Helm major
	// the repo-server bundles.
	Version string `yaml:"version,omitempty"`
	// Tracking is how Argo CD marks the resources of an app: annotation
	// (the Argo CD 3 default), label, annotation+label, or none to leave
	// the rendered manifests as the tools print them.
	Tracking string `yaml:"tracking,omitempty"`
	// InstanceLabelKey is the label of label tracking; "" means
	// DefaultInstanceLabelKey.
	InstanceLabelKey string `yaml:"instanceLabelKey,omitempty"`
	// Namespace is the namespace Argo CD is installed in (its control
	// plane); "" means DefaultNamespace. An Application in any other
	// namespace is known to Argo CD as "<namespace>_<name>": that is its
	// ARGOCD_APP_NAME, tracking value and .argocd-source-<name>.yaml.
	Namespace string `yaml:"namespace,omitempty"`
}

// DefaultNamespace is the namespace of a default Argo CD installation.
const DefaultNamespace = "argocd"

// ControlPlaneNamespace returns the namespace Argo CD runs in, defaulted.
func (a ArgoCD) ControlPlaneNamespace() string {
	if a.Namespace == "" {
		return DefaultNamespace
	}
	return a.Namespace
}

// MajorMinor returns the configured Argo CD version's major and minor.
func (a ArgoCD) MajorMinor() (major, minor int) {
	major, minor, _ = parseMajorMinor(a.versionOrDefault())
	return major, minor
}

// helm4ArgoMinor is the first Argo CD 3 minor whose repo-server bundles
// Helm 4: v3.5.0 moved from Helm 3.19 to Helm 4.2 (its 3.4-3.5 upgrade
// notes and hack/tool-versions.sh); v3.6 bundles Helm 4.3.
const helm4ArgoMinor = 5

// HelmMajor is the major of the helm binary the configured Argo CD's
// repo-server renders Helm sources with: 4 from Argo CD 3.5 on, 3 before.
func (a ArgoCD) HelmMajor() int {
	major, minor := a.MajorMinor()
	if major > 3 || major == 3 && minor >= helm4ArgoMinor {
		return 4
	}
	return 3
}

// TrackingMethod returns the tracking method, defaulted.
func (a ArgoCD) TrackingMethod() string {
	if a.Tracking == "" {
		return TrackingAnnotation
	}
	return a.Tracking
}

// LabelKey returns the instance label key, defaulted.
func (a ArgoCD) LabelKey() string {
	if a.InstanceLabelKey == "" {
		return DefaultInstanceLabelKey
	}
	return a.InstanceLabelKey
}

func (a ArgoCD) versionOrDefault() string {
	if a.Version == "" {
		return DefaultArgoVersion
	}
	return a.Version
}

func (a ArgoCD) validate(at locator) error {
	if _, _, err := parseMajorMinor(a.versionOrDefault()); err != nil {
		return invalid(at.line("argocd", "version"), "argocd.version: %v", err)
	}
	switch a.TrackingMethod() {
	case TrackingAnnotation, TrackingLabel, TrackingAnnotationAndLabel, TrackingNone:
	default:
		return invalid(at.line("argocd", "tracking"), "argocd.tracking: %q is not one of annotation, label, annotation+label, none", a.Tracking)
	}
	return nil
}

func parseMajorMinor(v string) (int, int, error) {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, fmt.Errorf("%q is not MAJOR.MINOR, e.g. %s", v, DefaultArgoVersion)
	}
	var nums [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("%q is not MAJOR.MINOR, e.g. %s", v, DefaultArgoVersion)
		}
		nums[i] = n
	}
	if nums[0] < 1 {
		return 0, 0, fmt.Errorf("%q is not an Argo CD release", v)
	}
	return nums[0], nums[1], nil
}
