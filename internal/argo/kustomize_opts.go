package argo

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// Fields of Argo CD's ApplicationSourceKustomize (3.x). As for the other
// blocks, an unknown field is an error: the CRD schema would refuse it.
var (
	kustomizeFields = []string{"namePrefix", "nameSuffix", "images", "commonLabels", "version",
		"commonAnnotations", "forceCommonLabels", "forceCommonAnnotations", "namespace",
		"commonAnnotationsEnvsubst", "replicas", "patches", "components", "ignoreMissingComponents",
		"labelWithoutSelector", "kubeVersion", "apiVersions", "labelIncludeTemplates"}
	replicaFields  = []string{"name", "count"}
	patchFields    = []string{"path", "patch", "target", "options"}
	selectorFields = []string{"group", "version", "kind", "name", "namespace",
		"annotationSelector", "labelSelector"}
)

// KustomizeOptions is a source's kustomize block: what Argo CD's
// repo-server applies with `kustomize edit` before `kustomize build`.
type KustomizeOptions struct {
	NamePrefix, NameSuffix string
	// Images are `kustomize edit set image` arguments:
	// [old=]new[:tag][@digest].
	Images                                      []string
	Replicas                                    []KustomizeReplica
	CommonLabels, CommonAnnotations             map[string]string
	ForceCommonLabels, ForceCommonAnnotations   bool
	LabelWithoutSelector, LabelIncludeTemplates bool
	// CommonAnnotationsEnvsubst makes Argo CD substitute its build
	// environment in commonAnnotations values (see Substitute).
	CommonAnnotationsEnvsubst bool
	Namespace                 string
	Patches                   []KustomizePatch
	Components                []string
	IgnoreMissingComponents   bool

	// Version picks one of the kustomize binaries an Argo CD admin
	// registered; KubeVersion and APIVersions reach Helm only when the
	// server's build options enable kustomize's helmCharts. Carried for
	// the inputs key; they change nothing in a build without helmCharts.
	Version, KubeVersion string
	APIVersions          []string
}

// KustomizeReplica is a replicas entry. Count is kept as written (an int
// or a string); Argo CD refuses a string that is not an integer when it
// builds, and so does the renderer.
type KustomizeReplica struct {
	Name  string
	Count string
}

// KustomizePatch is a patches entry. The JSON names are Argo CD's, which
// it writes into kustomization.yaml as they are.
type KustomizePatch struct {
	Path    string             `json:"path,omitempty" yaml:"path"`
	Patch   string             `json:"patch,omitempty" yaml:"patch"`
	Target  *KustomizeSelector `json:"target,omitempty" yaml:"target"`
	Options map[string]bool    `json:"options,omitempty" yaml:"options"`
}

// KustomizeSelector is a patch target.
type KustomizeSelector struct {
	Group              string `json:"group,omitempty" yaml:"group"`
	Version            string `json:"version,omitempty" yaml:"version"`
	Kind               string `json:"kind,omitempty" yaml:"kind"`
	Name               string `json:"name,omitempty" yaml:"name"`
	Namespace          string `json:"namespace,omitempty" yaml:"namespace"`
	AnnotationSelector string `json:"annotationSelector,omitempty" yaml:"annotationSelector"`
	LabelSelector      string `json:"labelSelector,omitempty" yaml:"labelSelector"`
}

type rawKustomize struct {
	NamePrefix                string            `yaml:"namePrefix"`
	NameSuffix                string            `yaml:"nameSuffix"`
	Images                    []string          `yaml:"images"`
	CommonLabels              map[string]string `yaml:"commonLabels"`
	Version                   string            `yaml:"version"`
	CommonAnnotations         map[string]string `yaml:"commonAnnotations"`
	ForceCommonLabels         bool              `yaml:"forceCommonLabels"`
	ForceCommonAnnotations    bool              `yaml:"forceCommonAnnotations"`
	Namespace                 string            `yaml:"namespace"`
	CommonAnnotationsEnvsubst bool              `yaml:"commonAnnotationsEnvsubst"`
	Replicas                  []struct {
		Name  string    `yaml:"name"`
		Count yaml.Node `yaml:"count"`
	} `yaml:"replicas"`
	Patches                 []KustomizePatch `yaml:"patches"`
	Components              []string         `yaml:"components"`
	IgnoreMissingComponents bool             `yaml:"ignoreMissingComponents"`
	LabelWithoutSelector    bool             `yaml:"labelWithoutSelector"`
	KubeVersion             string           `yaml:"kubeVersion"`
	APIVersions             []string         `yaml:"apiVersions"`
	LabelIncludeTemplates   bool             `yaml:"labelIncludeTemplates"`
}

// ParseKustomizeOptions decodes Source.Kustomize. nil (no block, or an
// explicit null) gives nil; an empty block gives zero options.
func ParseKustomizeOptions(raw []byte) (*KustomizeOptions, error) {
	if raw == nil {
		return nil, nil
	}
	var n yaml.Node
	if err := yaml.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("kustomize: %w", err)
	}
	if n.Kind == 0 {
		return &KustomizeOptions{}, nil
	}
	root := n.Content[0]
	if isNull(root) {
		return nil, nil
	}
	if err := checkKustomizeKeys(root); err != nil {
		return nil, err
	}
	var r rawKustomize
	if err := root.Decode(&r); err != nil {
		return nil, fmt.Errorf("kustomize: %w", err)
	}
	o := &KustomizeOptions{
		NamePrefix: r.NamePrefix, NameSuffix: r.NameSuffix, Images: r.Images,
		CommonLabels: r.CommonLabels, CommonAnnotations: r.CommonAnnotations,
		ForceCommonLabels: r.ForceCommonLabels, ForceCommonAnnotations: r.ForceCommonAnnotations,
		LabelWithoutSelector: r.LabelWithoutSelector, LabelIncludeTemplates: r.LabelIncludeTemplates,
		CommonAnnotationsEnvsubst: r.CommonAnnotationsEnvsubst, Namespace: r.Namespace,
		Patches: r.Patches, Components: r.Components, IgnoreMissingComponents: r.IgnoreMissingComponents,
		Version: r.Version, KubeVersion: r.KubeVersion, APIVersions: r.APIVersions,
	}
	for i, rep := range r.Replicas {
		if rep.Count.Kind != yaml.ScalarNode || isNull(&rep.Count) {
			return nil, fmt.Errorf("kustomize.replicas[%d]: count must be an integer or a string", i)
		}
		o.Replicas = append(o.Replicas, KustomizeReplica{Name: rep.Name, Count: rep.Count.Value})
	}
	return o, nil
}

func checkKustomizeKeys(n *yaml.Node) error {
	if err := checkKeys(n, "kustomize", kustomizeFields...); err != nil {
		return err
	}
	if l := yamlnode.Value(n, "replicas"); l != nil {
		for _, item := range l.Content {
			if err := checkKeys(item, "kustomize.replicas", replicaFields...); err != nil {
				return err
			}
		}
	}
	if l := yamlnode.Value(n, "patches"); l != nil {
		for _, item := range l.Content {
			if err := checkKeys(item, "kustomize.patches", patchFields...); err != nil {
				return err
			}
			if err := checkKeys(yamlnode.Value(item, "target"), "kustomize.patches.target", selectorFields...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Substitute applies Argo CD's build environment substitution to the
// fields its repo-server substitutes: every image, every commonLabels
// value, and the commonAnnotations values when commonAnnotationsEnvsubst
// is set. Nothing else (namePrefix, namespace, patches...) is substituted.
func (o *KustomizeOptions) Substitute(envsubst func(string) string) {
	if o == nil {
		return
	}
	for i, im := range o.Images {
		o.Images[i] = envsubst(im)
	}
	for k, v := range o.CommonLabels {
		o.CommonLabels[k] = envsubst(v)
	}
	if o.CommonAnnotationsEnvsubst {
		for k, v := range o.CommonAnnotations {
			o.CommonAnnotations[k] = envsubst(v)
		}
	}
}

// Edits reports whether the options change anything `kustomize build`
// sees: without them Argo CD builds the kustomization as it is.
func (o *KustomizeOptions) Edits() bool {
	return o != nil && (o.NamePrefix != "" || o.NameSuffix != "" || len(o.Images) > 0 ||
		len(o.Replicas) > 0 || len(o.CommonLabels) > 0 || len(o.CommonAnnotations) > 0 ||
		o.Namespace != "" || len(o.Patches) > 0 || len(o.Components) > 0)
}
