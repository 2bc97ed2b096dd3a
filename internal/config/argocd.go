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

	// The settings below live in the cluster, not in the Applications,
	// and change what Argo CD renders; each defaults to Argo CD's own
	// default, and is applied as Argo CD applies it.

	// Helm holds argocd-cm's helm.* settings.
	Helm ArgoHelm `yaml:"helm,omitempty"`
	// Kustomize holds argocd-cm's kustomize.* settings.
	Kustomize ArgoKustomize `yaml:"kustomize,omitempty"`
	// ApplicationSet holds the ApplicationSet controller's settings
	// (argocd-cmd-params-cm applicationsetcontroller.*).
	ApplicationSet ArgoApplicationSet `yaml:"applicationSet,omitempty"`
}

// ArgoHelm is argocd-cm's helm.* settings.
type ArgoHelm struct {
	// ValuesFileSchemes is helm.valuesFileSchemes as written in argocd-cm,
	// a comma-separated list ("https, http"): the URL schemes a value
	// file may use. Absent means Argo CD's default (https, http); an empty
	// string allows none.
	ValuesFileSchemes *string `yaml:"valuesFileSchemes,omitempty"`
}

// ArgoKustomize is argocd-cm's kustomize.* settings.
type ArgoKustomize struct {
	// BuildOptions is kustomize.buildOptions: flags Argo CD appends to
	// every `kustomize build` ("--load-restrictor LoadRestrictionsNone",
	// "--enable-helm"...). "" (Argo CD's default) adds none.
	BuildOptions string `yaml:"buildOptions,omitempty"`
	// Versions are the kustomize versions argocd-cm registers
	// (kustomize.path.<version> or kustomize.version.<version>): Argo CD
	// refuses a source whose kustomize.version is not one of them. A
	// registered one still builds with the kustomize linked here.
	Versions []string `yaml:"versions,omitempty"`
}

// ArgoApplicationSet is the ApplicationSet controller's settings.
type ArgoApplicationSet struct {
	// NewGitFileGlobbing is applicationsetcontroller.enable.new.git.file
	// .globbing (--enable-new-git-file-globbing): git files generator
	// paths are doublestar globs instead of `git ls-files` pathspecs.
	// Off by default, as in Argo CD.
	NewGitFileGlobbing bool `yaml:"newGitFileGlobbing,omitempty"`
}

// DefaultValuesFileSchemes is Argo CD's helm.valuesFileSchemes when
// argocd-cm does not set it.
var DefaultValuesFileSchemes = []string{"https", "http"}

// ValuesFileSchemes returns the URL schemes a Helm value file may use, as
// Argo CD's settings manager reads helm.valuesFileSchemes: split on ",",
// spaces trimmed, empty items dropped; the default when absent.
func (a ArgoCD) ValuesFileSchemes() []string {
	if a.Helm.ValuesFileSchemes == nil {
		return DefaultValuesFileSchemes
	}
	out := []string{}
	for _, s := range strings.Split(*a.Helm.ValuesFileSchemes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
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
