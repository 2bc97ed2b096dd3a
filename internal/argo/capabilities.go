package argo

import (
	"errors"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
	k8sversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// ErrKubeVersion is a Kubernetes version Argo CD cannot parse.
var ErrKubeVersion = errors.New("could not parse kubernetes version")

// sourceCapabilities is the part of a kustomize block that names
// capabilities.
type sourceCapabilities struct {
	KubeVersion string   `yaml:"kubeVersion"`
	APIVersions []string `yaml:"apiVersions"`
	Version     string   `yaml:"version"`
}

func kustomizeBlock(src Source) sourceCapabilities {
	var k sourceCapabilities
	if src.Kustomize != nil {
		_ = yaml.Unmarshal(src.Kustomize, &k) // canonical YAML from our own encoder
	}
	return k
}

// capabilities returns the kube version and API versions a source renders
// with. As in Argo CD, a source's own (helm block first, then kustomize
// block) replace the cluster's, which the config's kubeVersion and
// apiVersions stand for: they are not merged.
//
// Both are normalised where Argo CD normalises them: the cluster's API
// versions reach the repo-server sorted and without repeats (the
// controller builds them from a set), a source's own as written; every
// kube version goes through the repo-server's generic version parser.
func capabilities(src Source, cfg *config.Config) (string, []string, error) {
	k := kustomizeBlock(src)
	kv := cfg.KubeVersion
	switch {
	case src.Helm != nil && src.Helm.KubeVersion != "":
		kv = src.Helm.KubeVersion
	case k.KubeVersion != "":
		kv = k.KubeVersion
	}
	var apis []string
	switch {
	case src.Helm != nil && len(src.Helm.APIVersions) > 0:
		apis = slices.Clone(src.Helm.APIVersions)
	case len(k.APIVersions) > 0:
		apis = slices.Clone(k.APIVersions)
	default:
		apis = clusterAPIVersions(cfg.APIVersions)
	}
	kv, err := KubeVersion(kv)
	return kv, apis, err
}

// clusterAPIVersions is the cluster's API versions as the controller
// hands them to the repo-server: a set, sorted.
func clusterAPIVersions(vs []string) []string {
	if len(vs) == 0 {
		return nil
	}
	out := slices.Clone(vs)
	slices.Sort(out)
	return slices.Compact(out)
}

// KubeVersion is v as the repo-server passes it to Helm and kustomize:
// parsed by k8s.io's generic version parser, which drops a leading "v"
// and a vendor suffix ("v1.29.3-eks-1234" is 1.29.3) and needs at least
// a major and a minor; "" stays "" (the renderer's default). One it
// cannot parse is refused, as the repo-server refuses it.
func KubeVersion(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	parsed, err := k8sversion.ParseGeneric(v)
	if err != nil {
		return "", fmt.Errorf("%w %s: %v", ErrKubeVersion, v, err)
	}
	return parsed.String(), nil
}
