package argo

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

var (
	jsonnetFields    = []string{"extVars", "tlas", "libs"}
	jsonnetVarFields = []string{"name", "value", "code"}
)

// JsonnetOptions is a directory source's jsonnet block.
type JsonnetOptions struct {
	ExtVars []JsonnetVar `yaml:"extVars"`
	TLAs    []JsonnetVar `yaml:"tlas"`
	// Libs are library search directories, relative to the repository
	// root (not to the source path).
	Libs []string `yaml:"libs"`
}

// JsonnetVar is an external variable or a top-level argument: a string,
// or Jsonnet code when Code is set.
type JsonnetVar struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
	Code  bool   `yaml:"code"`
}

// ParseJsonnetOptions decodes Directory.Jsonnet; nil or null gives nil.
func ParseJsonnetOptions(raw []byte) (*JsonnetOptions, error) {
	if raw == nil {
		return nil, nil
	}
	var n yaml.Node
	if err := yaml.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("directory.jsonnet: %w", err)
	}
	if n.Kind == 0 || isNull(n.Content[0]) {
		return nil, nil
	}
	root := n.Content[0]
	if err := checkKeys(root, "directory.jsonnet", jsonnetFields...); err != nil {
		return nil, err
	}
	for _, list := range []string{"extVars", "tlas"} {
		if l := yamlnode.Value(root, list); l != nil {
			for _, item := range l.Content {
				if err := checkKeys(item, "directory.jsonnet."+list, jsonnetVarFields...); err != nil {
					return nil, err
				}
			}
		}
	}
	var o JsonnetOptions
	if err := root.Decode(&o); err != nil {
		return nil, fmt.Errorf("directory.jsonnet: %w", err)
	}
	return &o, nil
}

// Substitute applies Argo CD's build environment substitution to the
// values of external variables and top-level arguments, code or not, as
// the repo-server does; names and libs are left alone.
func (o *JsonnetOptions) Substitute(envsubst func(string) string) {
	if o == nil {
		return
	}
	for i := range o.ExtVars {
		o.ExtVars[i].Value = envsubst(o.ExtVars[i].Value)
	}
	for i := range o.TLAs {
		o.TLAs[i].Value = envsubst(o.TLAs[i].Value)
	}
}
