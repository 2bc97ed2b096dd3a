package config

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"

	"go.yaml.in/yaml/v3"
)

// Deployment is what .promote.yaml says about where the apps run rather
// than about the repository or the comparison: the Argo CD installation
// (the argocd block: version, tracking, namespace, argocd-cm settings)
// and the cluster's capabilities (kubeVersion, apiVersions). manifestdiff
// renders each revision with the Deployment of that revision, so a
// merge request that upgrades Argo CD or the cluster shows what the
// upgrade changes; everything else (environments, manifests, ignore...)
// is read at head for both.
type Deployment struct {
	Argo        ArgoCD
	KubeVersion string
	APIVersions []string
}

// Deployment returns c's deployment settings.
func (c *Config) Deployment() Deployment {
	return Deployment{Argo: c.Argo, KubeVersion: c.KubeVersion, APIVersions: slices.Clone(c.APIVersions)}
}

// WithDeployment returns a copy of c whose deployment settings are d.
func (c *Config) WithDeployment(d Deployment) *Config {
	out := *c
	out.Argo, out.KubeVersion, out.APIVersions = d.Argo, d.KubeVersion, slices.Clone(d.APIVersions)
	return &out
}

// Same reports whether two deployments render alike: equal as written
// (a setting written out at its default counts as a change, which costs
// renders, never a missed difference).
func (d Deployment) Same(o Deployment) bool { return reflect.DeepEqual(d, o) }

// ParseDeployment reads only the deployment settings of a .promote.yaml,
// validated as Parse validates them; the file's other keys are ignored,
// so the file of an older revision whose other keys this version no
// longer knows still gives its deployment.
func ParseDeployment(data []byte) (Deployment, error) {
	var raw struct {
		Argo        yaml.Node `yaml:"argocd"`
		KubeVersion string    `yaml:"kubeVersion"`
		APIVersions []string  `yaml:"apiVersions"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return Deployment{}, fmt.Errorf("parsing %s: %s", FileName, oneLine(err))
	}
	d := Deployment{KubeVersion: raw.KubeVersion, APIVersions: raw.APIVersions}
	if raw.Argo.Kind != 0 {
		var buf bytes.Buffer
		if err := yaml.NewEncoder(&buf).Encode(&raw.Argo); err != nil {
			return Deployment{}, fmt.Errorf("parsing %s: argocd: %s", FileName, oneLine(err))
		}
		dec := yaml.NewDecoder(&buf)
		dec.KnownFields(true)
		if err := dec.Decode(&d.Argo); err != nil {
			return Deployment{}, fmt.Errorf("parsing %s: argocd: %s", FileName, oneLine(err))
		}
	}
	var doc yaml.Node
	at := locator{}
	if yaml.Unmarshal(data, &doc) == nil && len(doc.Content) > 0 {
		at.root = doc.Content[0]
	}
	if err := d.Argo.validate(at); err != nil {
		return Deployment{}, err
	}
	return d, nil
}
