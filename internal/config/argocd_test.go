package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestArgoCDBlock(t *testing.T) {
	for _, tc := range []struct {
		block              string
		major, minor       int
		tracking, labelKey string
	}{
		{"", 3, 6, "annotation", "app.kubernetes.io/instance"},
		{"argocd: {version: '3.5'}\n", 3, 5, "annotation", "app.kubernetes.io/instance"},
		{"argocd: {version: v2.14.3, tracking: label, instanceLabelKey: argocd.argoproj.io/instance}\n", 2, 14, "label", "argocd.argoproj.io/instance"},
		{"argocd: {tracking: annotation+label}\n", 3, 6, "annotation+label", "app.kubernetes.io/instance"},
		{"argocd: {tracking: none}\n", 3, 6, "none", "app.kubernetes.io/instance"},
	} {
		c, err := Parse([]byte(good + tc.block))
		if err != nil {
			t.Fatalf("%q: %v", tc.block, err)
		}
		major, minor := c.Argo.MajorMinor()
		if major != tc.major || minor != tc.minor || c.Argo.TrackingMethod() != tc.tracking || c.Argo.LabelKey() != tc.labelKey {
			t.Errorf("%q: %d.%d %s %s", tc.block, major, minor, c.Argo.TrackingMethod(), c.Argo.LabelKey())
		}
	}
	for block, want := range map[string]string{
		"argocd: {version: three}\n":    `argocd.version: "three" is not MAJOR.MINOR`,
		"argocd: {version: '3'}\n":      `argocd.version: "3" is not MAJOR.MINOR`,
		"argocd: {tracking: labels}\n":  `argocd.tracking: "labels" is not one of`,
		"argocd: {trackingMethod: x}\n": "(did you mean tracking?)",
	} {
		_, err := Parse([]byte(good + block))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", block, err, want)
		}
		if strings.Contains(block, "{version") && !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v is not ErrInvalid", block, err)
		}
	}
}

// TestArgoCDHelmMajor follows the helm binary each Argo CD release
// bundles (hack/tool-versions.sh): Helm 3 up to 3.4, Helm 4 from 3.5.
func TestArgoCDHelmMajor(t *testing.T) {
	for version, want := range map[string]int{
		"": 4, "3.6": 4, "v3.6.1": 4, "3.5": 4, "3.5.0": 4, "4.0": 4,
		"3.4": 3, "v3.4.7": 3, "3.0": 3, "2.14.3": 3,
	} {
		if got := (ArgoCD{Version: version}).HelmMajor(); got != want {
			t.Errorf("argocd.version %q: Helm %d, want %d", version, got, want)
		}
	}
}

// TestArgoCDClusterSettings: the argocd-cm and controller settings that
// change rendering default to Argo CD's defaults; helm.valuesFileSchemes
// is read as Argo CD's settings manager reads it.
func TestArgoCDClusterSettings(t *testing.T) {
	for _, tc := range []struct {
		block        string
		schemes      []string
		buildOptions string
		globbing     bool
	}{
		{"", []string{"https", "http"}, "", false},
		{"argocd: {helm: {valuesFileSchemes: 'https'}}\n", []string{"https"}, "", false},
		{"argocd: {helm: {valuesFileSchemes: ' s3, ,HTTPS '}}\n", []string{"s3", "HTTPS"}, "", false},
		{"argocd: {helm: {valuesFileSchemes: ''}}\n", []string{}, "", false},
		{"argocd:\n  kustomize: {buildOptions: --load-restrictor LoadRestrictionsNone}\n  applicationSet: {newGitFileGlobbing: true}\n",
			[]string{"https", "http"}, "--load-restrictor LoadRestrictionsNone", true},
	} {
		c, err := Parse([]byte(good + tc.block))
		if err != nil {
			t.Fatalf("%q: %v", tc.block, err)
		}
		if got := c.Argo.ValuesFileSchemes(); !slices.Equal(got, tc.schemes) || got == nil {
			t.Errorf("%q: schemes %q, want %q", tc.block, got, tc.schemes)
		}
		if c.Argo.Kustomize.BuildOptions != tc.buildOptions || c.Argo.ApplicationSet.NewGitFileGlobbing != tc.globbing {
			t.Errorf("%q: %+v", tc.block, c.Argo)
		}
	}
	if _, err := Parse([]byte(good + "argocd: {helm: {valueFileSchemes: https}}\n")); err == nil || !strings.Contains(err.Error(), `unknown key "valueFileSchemes" (did you mean valuesFileSchemes?)`) {
		t.Errorf("a misspelt setting: err = %v", err)
	}
}
