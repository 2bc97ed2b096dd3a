package argo

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// applyTemplatePatch renders an ApplicationSet's templatePatch with one
// parameter set and applies it to the generated Application (app, a
// mapping with metadata and spec) the way the controller does: a
// strategic merge patch against the Application type, where mappings
// merge key by key, null deletes a key, every list is replaced whole (no
// Application list has a merge key) and `$patch: replace|delete`
// directives work on mappings. spec.project is never patched.
func (r *renderer) applyTemplatePatch(app *yaml.Node, patch string, params map[string]any) (*yaml.Node, error) {
	text, err := r.replace(patch, params)
	if err != nil {
		return nil, fmt.Errorf("templatePatch: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("templatePatch: %w", err)
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return app, nil
	}
	p, err := normalizeAliases(doc.Content[0])
	if err != nil {
		return nil, fmt.Errorf("templatePatch: %w", err)
	}
	if p.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("templatePatch: must be a mapping")
	}
	project := copyNode(yamlnode.Value(yamlnode.Value(app, "spec"), "project"))
	out := mergePatch(app, p)
	if out == nil {
		out = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	setProject(out, project)
	return out, nil
}

// mergePatch returns dst patched with p; nil means deleted.
func mergePatch(dst, p *yaml.Node) *yaml.Node {
	if isNull(p) {
		return nil
	}
	if p.Kind != yaml.MappingNode {
		return copyNode(p)
	}
	switch scalarAt(p, "$patch") {
	case "delete":
		return nil
	case "replace":
		return stripDirectives(p)
	}
	if dst == nil || dst.Kind != yaml.MappingNode {
		return stripDirectives(p)
	}
	out := copyNode(dst)
	for i := 0; i+1 < len(p.Content); i += 2 {
		k, v := p.Content[i], p.Content[i+1]
		if k.Value == "$patch" || k.Value == "$retainKeys" {
			continue
		}
		merged := mergePatch(yamlnode.Value(out, k.Value), v)
		setChild(out, k, merged)
	}
	return out
}

// setChild sets key k of mapping n to v, or removes it when v is nil.
func setChild(n, k, v *yaml.Node) {
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == k.Value {
			if v == nil {
				n.Content = append(n.Content[:j], n.Content[j+2:]...)
			} else {
				n.Content[j+1] = v
			}
			return
		}
	}
	if v != nil {
		n.Content = append(n.Content, copyNode(k), v)
	}
}

// stripDirectives copies a patch mapping without its directives, nulls
// included (a key set to null in a new mapping is simply absent).
func stripDirectives(p *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: p.Line, Column: p.Column}
	for i := 0; i+1 < len(p.Content); i += 2 {
		k, v := p.Content[i], p.Content[i+1]
		if k.Value == "$patch" || k.Value == "$retainKeys" || isNull(v) {
			continue
		}
		if v.Kind == yaml.MappingNode {
			v = stripDirectives(v)
		} else {
			v = copyNode(v)
		}
		out.Content = append(out.Content, copyNode(k), v)
	}
	return out
}

func setProject(app, project *yaml.Node) {
	spec := yamlnode.Value(app, "spec")
	if spec == nil {
		if project == nil {
			return
		}
		spec = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		setChild(app, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "spec"}, spec)
	}
	setChild(spec, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "project"}, project)
}
