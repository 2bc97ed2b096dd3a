package argo

import (
	"errors"
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

type rawAppSet struct {
	GoTemplate        bool        `yaml:"goTemplate"`
	GoTemplateOptions []string    `yaml:"goTemplateOptions"`
	Generators        []yaml.Node `yaml:"generators"`
	Template          yaml.Node   `yaml:"template"`
	TemplatePatch     string      `yaml:"templatePatch"`
}

// MaxGeneratedApps bounds the applications one ApplicationSet generates.
// Argo CD has no such limit, but a matrix of two lists multiplies them, so
// a few kilobytes of a merge request could otherwise ask for billions of
// apps (each a few kilobytes of memory). Real fleets have thousands; a
// list of 100,000 elements still expands (see TestListGeneratorLinear).
const MaxGeneratedApps = 100_000

// ErrTooManyApps: an ApplicationSet generates more than MaxGeneratedApps.
var ErrTooManyApps = errors.New("generates too many applications")

var errTooMany = fmt.Errorf("%w (more than %d)", ErrTooManyApps, MaxGeneratedApps)

// expandAppSet generates the Applications of one ApplicationSet document.
func (d *discovery) expandAppSet(at origin, doc *yaml.Node) ([]App, error) {
	name := scalarAt(doc, "metadata.name")
	if name == "" {
		return nil, at.errorf(0, "applicationset without metadata.name")
	}
	fail := func(err error) ([]App, error) {
		e := at.errorf(0, "applicationset %s: %s", name, err)
		if errors.Is(err, ErrTooManyApps) {
			e = sentinel{e, ErrTooManyApps} // posError keeps the words only
		}
		return nil, e
	}
	var spec rawAppSet
	if err := decodeInto(yamlnode.Value(doc, "spec"), &spec); err != nil {
		return fail(err)
	}
	r, err := newRenderer(spec.GoTemplate, spec.GoTemplateOptions)
	if err != nil {
		return fail(err)
	}
	var out []App
	names := map[string]bool{}
	for i := range spec.Generators {
		results, err := d.transform(&spec.Generators[i], r, levelTop, nil)
		if err != nil {
			return fail(fmt.Errorf("generators[%d]: %w", i, err))
		}
		for _, res := range results {
			tmpl := mergeTemplate(res.tmpl, &spec.Template)
			for _, p := range res.params {
				a, err := d.instantiate(at, name, scalarAt(doc, "metadata.namespace"), tmpl, spec.TemplatePatch, r, p)
				if err != nil {
					return nil, err
				}
				// Argo CD refuses an ApplicationSet that generates one name twice.
				if names[a.Name] {
					return fail(fmt.Errorf("generates application %s twice", a.Name))
				}
				names[a.Name] = true
				if len(names) > MaxGeneratedApps {
					return fail(errTooMany)
				}
				if d.emit != nil {
					// at once, not held with the whole ApplicationSet's
					// (see DiscoverOptions.Emit should it fail later)
					d.accept(a)
					continue
				}
				out = append(out, a)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// instantiate renders the template with one parameter set into an App.
func (d *discovery) instantiate(at origin, appSet, appSetNS string, tmpl *yaml.Node, patch string, r *renderer, params map[string]any) (App, error) {
	n, err := r.rendered(tmpl, params)
	if err != nil {
		return App{}, at.errorf(0, "applicationset %s: template: %s", appSet, err)
	}
	if patch != "" {
		if n, err = r.applyTemplatePatch(n, patch, params); err != nil {
			return App{}, at.errorf(0, "applicationset %s: %s", appSet, err)
		}
	}
	if n.Line > 0 {
		at.line = n.Line
	}
	return d.buildApp(at, yamlnode.Value(n, "metadata"), yamlnode.Value(n, "spec"), appSet, appSetNS)
}

// sentinel is err, which also is is for errors.Is.
type sentinel struct {
	error
	is error
}

func (s sentinel) Unwrap() []error { return []error{s.error, s.is} }
