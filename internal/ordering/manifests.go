package ordering

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"go.yaml.in/yaml/v3"
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

// readObjects parses every Argo CD document of env's manifest files.
// argo.Discover has already accepted these files, so errors here are rare;
// they still name file:line rather than panic or guess.
func readObjects(fsys fs.FS, cfg *config.Config, env string) ([]rawObject, error) {
	files, err := cfg.ManifestFiles(fsys, env)
	if err != nil {
		return nil, err
	}
	var out []rawObject
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		objs, err := parseObjects(f, data)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func parseObjects(file string, data []byte) ([]rawObject, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []rawObject
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s", file, oneLine(err))
		}
		if len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
			continue
		}
		doc := n.Content[0]
		var d rawDoc
		if err := doc.Decode(&d); err != nil {
			if !isArgo(scalar(doc, "apiVersion"), scalar(doc, "kind")) {
				continue // not ours: argo.Discover ignores it too
			}
			return nil, fmt.Errorf("%s:%d: %s", file, doc.Line, oneLine(err))
		}
		if !isArgo(d.APIVersion, d.Kind) {
			continue
		}
		out = append(out, toObject(file, doc.Line, &d))
	}
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

// scalar returns the scalar value of key in mapping n, "" if absent.
func scalar(n *yaml.Node, key string) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}
