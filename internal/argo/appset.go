package argo

import (
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"
)

// Generator kinds Argo CD knows; only git and list are expanded offline,
// the others depend on cluster or SCM state and are refused by name.
var (
	generatorFields = []string{"list", "clusters", "git", "scmProvider", "clusterDecisionResource",
		"pullRequest", "matrix", "merge", "selector", "plugin"}
	gitFields  = []string{"repoURL", "revision", "directories", "files", "template", "pathParamPrefix", "values", "requeueAfterSeconds"}
	listFields = []string{"elements", "elementsYaml", "template"}
)

type rawAppSet struct {
	GoTemplate        bool        `yaml:"goTemplate"`
	GoTemplateOptions []string    `yaml:"goTemplateOptions"`
	Generators        []yaml.Node `yaml:"generators"`
	Template          yaml.Node   `yaml:"template"`
	TemplatePatch     string      `yaml:"templatePatch"`
}

// expandAppSet generates the Applications of one ApplicationSet document.
func (d *discovery) expandAppSet(at origin, doc *yaml.Node) ([]App, error) {
	name := scalarAt(doc, "metadata.name")
	if name == "" {
		return nil, at.errorf(0, "applicationset without metadata.name")
	}
	fail := func(err error) ([]App, error) {
		return nil, at.errorf(0, "applicationset %s: %s", name, err)
	}
	var spec rawAppSet
	if err := decodeInto(child(doc, "spec"), &spec); err != nil {
		return fail(err)
	}
	r, err := newRenderer(spec.GoTemplate, spec.GoTemplateOptions)
	if err != nil {
		return fail(err)
	}
	var out []App
	names := map[string]bool{}
	for i := range spec.Generators {
		gen := &spec.Generators[i]
		params, tmpl, err := d.generate(gen, r)
		if err != nil {
			return fail(fmt.Errorf("generators[%d]: %w", i, err))
		}
		tmpl = mergeTemplate(tmpl, &spec.Template)
		for _, p := range params {
			a, err := d.instantiate(at, name, tmpl, spec.TemplatePatch, r, p)
			if err != nil {
				return nil, err
			}
			// Argo CD refuses an ApplicationSet that generates one name twice.
			if names[a.Name] {
				return fail(fmt.Errorf("generates application %s twice", a.Name))
			}
			names[a.Name] = true
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// instantiate renders the template with one parameter set into an App.
func (d *discovery) instantiate(at origin, appSet string, tmpl *yaml.Node, patch string, r *renderer, params map[string]any) (App, error) {
	n := copyNode(tmpl)
	if err := r.renderTree(n, params); err != nil {
		return App{}, at.errorf(0, "applicationset %s: template: %s", appSet, err)
	}
	if patch != "" {
		var err error
		if n, err = r.applyTemplatePatch(n, patch, params); err != nil {
			return App{}, at.errorf(0, "applicationset %s: %s", appSet, err)
		}
	}
	if n.Line > 0 {
		at.line = n.Line
	}
	return d.buildApp(at, child(n, "metadata"), child(n, "spec"), appSet)
}

// generate returns one generator's parameter sets and its own template
// override (nil if none).
func (d *discovery) generate(gen *yaml.Node, r *renderer) ([]map[string]any, *yaml.Node, error) {
	if err := checkKeys(gen, "generator", generatorFields...); err != nil {
		return nil, nil, err
	}
	if gen.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("generator must be a mapping")
	}
	var kinds []string
	for i := 0; i+1 < len(gen.Content); i += 2 {
		if !isNull(gen.Content[i+1]) {
			kinds = append(kinds, gen.Content[i].Value)
		}
	}
	if len(kinds) != 1 {
		return nil, nil, fmt.Errorf("want exactly one generator, found %d (%v)", len(kinds), kinds)
	}
	body := child(gen, kinds[0])
	tmpl := child(body, "template")
	switch kinds[0] {
	case "git":
		if err := checkKeys(body, "git generator", gitFields...); err != nil {
			return nil, nil, err
		}
		p, err := d.gitParams(body, r)
		return p, tmpl, err
	case "list":
		if err := checkKeys(body, "list generator", listFields...); err != nil {
			return nil, nil, err
		}
		p, err := listParams(body, r.goTmpl)
		return p, tmpl, err
	case "selector":
		return nil, nil, fmt.Errorf("generator selector is not supported")
	}
	return nil, nil, fmt.Errorf("%s generator is not supported offline", kinds[0])
}

// mergeTemplate overlays a generator's template on the ApplicationSet's, as
// Argo CD does: fields the generator sets win, mappings merge key by key.
func mergeTemplate(over, base *yaml.Node) *yaml.Node {
	if isNull(over) {
		return base
	}
	if isNull(base) || over.Kind != yaml.MappingNode || base.Kind != yaml.MappingNode {
		return over
	}
	out := copyNode(over)
	for i := 0; i+1 < len(base.Content); i += 2 {
		k, v := base.Content[i], base.Content[i+1]
		if cur := child(out, k.Value); cur != nil {
			merged := mergeTemplate(cur, v)
			for j := 0; j+1 < len(out.Content); j += 2 {
				if out.Content[j].Value == k.Value {
					out.Content[j+1] = merged
				}
			}
			continue
		}
		out.Content = append(out.Content, copyNode(k), copyNode(v))
	}
	return out
}
