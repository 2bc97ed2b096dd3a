package argo

import (
	"errors"
	"slices"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// Inputs the repo-server refuses before it renders anything, whatever
// this renderer could make of them.
var (
	// ErrKustomizeVersion is a kustomize.version no argocd-cm entry
	// registers.
	ErrKustomizeVersion = errors.New("kustomize version is not registered")
	// ErrHelmVersion is a helm.version Argo CD has no Helm for.
	ErrHelmVersion = errors.New("helm version is not supported")
)

// registeredKustomize refuses a kustomize source whose kustomize.version
// the Argo CD admin did not register in argocd-cm (kustomize.path.<v> or
// kustomize.version.<v>), as the repo-server does before it builds. A
// registered version still builds with the kustomize linked here.
func registeredKustomize(src Source, cfg *config.Config) error {
	v := kustomizeBlock(src).Version
	if v == "" || slices.Contains(cfg.Argo.Kustomize.Versions, v) {
		return nil
	}
	return unregisteredKustomize(v)
}

// unregisteredKustomize says what Argo CD says, and is ErrKustomizeVersion.
type unregisteredKustomize string

func (v unregisteredKustomize) Error() string {
	return "kustomize version " + string(v) + " is not registered"
}

func (unregisteredKustomize) Is(target error) bool { return target == ErrKustomizeVersion }

// supportedHelm refuses a helm.version Argo CD 3.6 does not accept: only
// "" and "v3" or "v4" (both run the one Helm it bundles); "v2" and
// anything else fail the app with its message.
func supportedHelm(h *Helm) error {
	if h == nil {
		return nil
	}
	switch h.Version {
	case "", "v3", "v4":
		return nil
	}
	return unsupportedHelm(h.Version)
}

// unsupportedHelm says what Argo CD says, and is ErrHelmVersion.
type unsupportedHelm string

func (v unsupportedHelm) Error() string {
	return "helm version '" + string(v) + "' is not supported"
}

func (unsupportedHelm) Is(target error) bool { return target == ErrHelmVersion }
