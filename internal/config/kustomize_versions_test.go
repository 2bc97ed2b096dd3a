package config

import (
	"slices"
	"testing"
)

// argocd.kustomize.versions lists the versions argocd-cm registers.
func TestKustomizeVersions(t *testing.T) {
	c, err := Parse([]byte(good + "argocd: {kustomize: {versions: [v4.5.7, v5.4.3]}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"v4.5.7", "v5.4.3"}; !slices.Equal(c.Argo.Kustomize.Versions, want) {
		t.Errorf("versions %v, want %v", c.Argo.Kustomize.Versions, want)
	}
}
