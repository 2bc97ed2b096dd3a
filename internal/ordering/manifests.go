package ordering

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/plainyaml"
	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// rawObject is what this package needs of an Application or ApplicationSet
// document that argo.App does not carry: the ApplicationSet's own metadata,
// its template before generator parameters are filled in, and its strategy.
type rawObject struct {
	Kind, Name, File string
	Line             int
	Annotations      map[string]string
	Automated        bool // Application: spec; ApplicationSet: template spec
	TemplateAnn      map[string]string
	Strategy         *rawStrategy
}

type rawMeta struct {
	Name        string            `yaml:"name"`
	Annotations map[string]string `yaml:"annotations"`
}

type rawSyncPolicy struct {
	Automated *struct {
		Enabled *bool `yaml:"enabled"`
	} `yaml:"automated"`
}

// on mirrors Argo CD 3: an automated block enables auto-sync unless it
// says enabled: false.
func (p rawSyncPolicy) on() bool {
	return p.Automated != nil && (p.Automated.Enabled == nil || *p.Automated.Enabled)
}

type rawStrategy struct {
	Type        string `yaml:"type"`
	RollingSync struct {
		Steps []rawStep `yaml:"steps"`
	} `yaml:"rollingSync"`
}

type rawStep struct {
	MatchExpressions []MatchExpression `yaml:"matchExpressions"`
	MaxUpdate        yaml.Node         `yaml:"maxUpdate"` // int or "25%"
}

type rawDoc struct {
	APIVersion string  `yaml:"apiVersion"`
	Kind       string  `yaml:"kind"`
	Metadata   rawMeta `yaml:"metadata"`
	Spec       struct {
		SyncPolicy rawSyncPolicy `yaml:"syncPolicy"`
		Template   struct {
			Metadata rawMeta `yaml:"metadata"`
			Spec     struct {
				SyncPolicy rawSyncPolicy `yaml:"syncPolicy"`
			} `yaml:"spec"`
		} `yaml:"template"`
		Strategy *rawStrategy `yaml:"strategy"`
	} `yaml:"spec"`
}

// objectsOf returns the Argo CD documents of env's manifests, which
// argo.ReadManifests has parsed (and argo.DiscoverManifests accepted, on a
// full build), so errors here are rare; they still name file:line rather
// than panic or guess.
func objectsOf(ms []argo.Manifest) ([]rawObject, error) {
	var out []rawObject
	for _, m := range ms {
		for _, doc := range m.Docs {
			if doc == nil || doc.Kind != yaml.MappingNode {
				continue
			}
			var d rawDoc
			if err := plainyaml.Decode(doc, &d, plainDoc); err != nil {
				if !isArgo(yamlnode.Scalar(yamlnode.Value(doc, "apiVersion")), yamlnode.Scalar(yamlnode.Value(doc, "kind"))) {
					continue // not ours: argo.Discover ignores it too
				}
				return nil, fmt.Errorf("%s:%d: %s", m.File, doc.Line, oneLine(err))
			}
			if !isArgo(d.APIVersion, d.Kind) {
				continue
			}
			out = append(out, toObject(m.File, doc.Line, &d))
		}
	}
	return out, nil
}

func toObject(file string, line int, d *rawDoc) rawObject {
	o := rawObject{Kind: d.Kind, Name: d.Metadata.Name, File: file, Line: line,
		Annotations: d.Metadata.Annotations}
	if d.Kind == KindApplication {
		o.Automated = d.Spec.SyncPolicy.on()
		return o
	}
	o.Automated = d.Spec.Template.Spec.SyncPolicy.on()
	o.TemplateAnn = d.Spec.Template.Metadata.Annotations
	o.Strategy = d.Spec.Strategy
	return o
}

func isArgo(apiVersion, kind string) bool {
	return strings.HasPrefix(apiVersion, "argoproj.io/") && (kind == KindApplication || kind == KindApplicationSet)
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}
