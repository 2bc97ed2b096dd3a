package argo

import (
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// generatorKinds are the generator fields of an ApplicationSet generator
// in the order of Argo CD's type, which is the order it runs them when
// one entry names several. selector is not a kind: it filters them.
var generatorKinds = []string{"list", "clusters", "git", "scmProvider", "clusterDecisionResource",
	"pullRequest", "matrix", "merge", "plugin"}

var (
	generatorFields = append([]string{"selector"}, generatorKinds...)
	gitFields       = []string{"repoURL", "revision", "directories", "files", "template", "pathParamPrefix", "values", "requeueAfterSeconds"}
	listFields      = []string{"elements", "elementsYaml", "template"}
	matrixFields    = []string{"generators", "template"}
	mergeFields     = []string{"generators", "mergeKeys", "template"}
)

// Generator levels: the ApplicationSet's own generators, the children of
// a matrix or merge among them (which may be a matrix or merge again),
// and the children of such a nested matrix or merge. Argo CD keeps a
// nested matrix or merge as raw JSON and decodes it leniently: its
// unknown fields, a template, and a third level of matrix or merge are
// dropped, not refused.
const (
	levelTop = iota
	levelNested
	levelTerminal
)

// genResult is what one generator kind of an entry produced: parameter
// sets, and its template override (nil if none).
type genResult struct {
	kind   string
	params []map[string]any
	tmpl   *yaml.Node
}

// transform is Argo CD's processing of one generator entry: every kind it
// names (in Argo CD's order) generates parameter sets, which the entry's
// selector filters. genParams, when not empty, are the parameters of a
// matrix's first child, rendered into this entry before it generates.
func (d *discovery) transform(entry *yaml.Node, r *renderer, level int, genParams map[string]any) ([]genResult, error) {
	strict := level < levelTerminal
	if isNull(entry) || entry.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("generator must be a mapping")
	}
	if strict {
		if err := checkKeys(entry, "generator", generatorFields...); err != nil {
			return nil, err
		}
	}
	sel, err := parseSelector(yamlnode.Value(entry, "selector"))
	if err != nil {
		return nil, fmt.Errorf("error parsing label selector: %w", err)
	}
	var out []genResult
	for _, kind := range generatorKinds {
		body := yamlnode.Value(entry, kind)
		if isNull(body) || (level == levelTerminal && (kind == "matrix" || kind == "merge")) {
			continue
		}
		tmpl := yamlnode.Value(body, "template")
		if len(genParams) > 0 {
			if body, err = r.interpolate(body, kind, genParams); err != nil {
				return nil, fmt.Errorf("failed to replace parameters in generator: %w", err)
			}
		}
		params, err := d.generateKind(kind, body, r, level, strict)
		if err != nil {
			return nil, err
		}
		if sel != nil {
			kept := params[:0:0]
			for _, p := range params {
				if sel.matches(flattenParams(p)) {
					kept = append(kept, p)
				}
			}
			params = kept
		}
		out = append(out, genResult{kind: kind, params: params, tmpl: tmpl})
	}
	return out, nil
}

// generateKind runs one generator.
func (d *discovery) generateKind(kind string, body *yaml.Node, r *renderer, level int, strict bool) ([]map[string]any, error) {
	check := func(what string, fields ...string) error {
		if !strict || (level == levelNested && (kind == "matrix" || kind == "merge")) {
			return nil // raw JSON in Argo CD: decoded leniently
		}
		return checkKeys(body, what, fields...)
	}
	switch kind {
	case "git":
		if err := check("git generator", gitFields...); err != nil {
			return nil, err
		}
		return d.gitParams(body, r)
	case "list":
		if err := check("list generator", listFields...); err != nil {
			return nil, err
		}
		return listParams(body, r.goTmpl)
	case "matrix":
		if err := check("matrix generator", matrixFields...); err != nil {
			return nil, err
		}
		return d.matrixParams(body, r, level)
	case "merge":
		if err := check("merge generator", mergeFields...); err != nil {
			return nil, err
		}
		return d.mergeParams(body, r, level)
	case "plugin":
		return nil, fmt.Errorf("plugin generator is not supported offline: it calls a plugin service of the cluster")
	}
	return nil, fmt.Errorf("%s generator is not supported offline: it reads the cluster or an SCM API", kind)
}

// childParams generates a matrix or merge child's parameter sets, as
// Argo CD does: the child must name exactly one generator, and its own
// template is ignored.
func (d *discovery) childParams(n *yaml.Node, r *renderer, level int, genParams map[string]any) ([]map[string]any, error) {
	res, err := d.transform(n, r, level+1, genParams)
	if err != nil {
		return nil, fmt.Errorf("child generator returned an error on parameter generation: %w", err)
	}
	switch {
	case len(res) == 0:
		return nil, fmt.Errorf("child generator generated no parameters")
	case len(res) > 1:
		return nil, fmt.Errorf("found more than one generator in matrix.Generators")
	}
	return res[0].params, nil
}

// mergeTemplate overlays a generator's template on the ApplicationSet's,
// as Argo CD does (mergo without override): fields the generator sets win,
// mappings merge key by key, and a field the generator leaves empty (an
// empty string, false, 0, null, an empty list) takes the
// ApplicationSet's.
func mergeTemplate(over, base *yaml.Node) *yaml.Node {
	if isNull(over) {
		return base
	}
	if isNull(base) {
		return over
	}
	if over.Kind != yaml.MappingNode || base.Kind != yaml.MappingNode {
		if emptyValue(over) {
			return base
		}
		return over
	}
	out := copyNode(over)
	for i := 0; i+1 < len(base.Content); i += 2 {
		k, v := base.Content[i], base.Content[i+1]
		if cur := yamlnode.Value(out, k.Value); cur != nil {
			setChild(out, k, mergeTemplate(cur, v))
			continue
		}
		out.Content = append(out.Content, copyNode(k), copyNode(v))
	}
	return out
}

// emptyValue is mergo's notion of an empty field for a YAML value.
func emptyValue(n *yaml.Node) bool {
	switch {
	case isNull(n):
		return true
	case n.Kind == yaml.SequenceNode:
		return len(n.Content) == 0
	case n.Kind != yaml.ScalarNode:
		return false
	}
	switch n.ShortTag() {
	case "!!str":
		return n.Value == ""
	case "!!bool":
		return n.Value == "false"
	case "!!int", "!!float":
		var f float64
		return n.Decode(&f) == nil && f == 0
	}
	return false
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
