package argo

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/plainyaml"
	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// rawMeta and rawSpec hold the parts of an Application the render and the
// live diff need; other spec fields (info, ...) affect neither.
type rawMeta struct {
	Name        string            `yaml:"name"`
	Namespace   string            `yaml:"namespace"`
	Annotations map[string]string `yaml:"annotations"`
	Labels      map[string]string `yaml:"labels"`
}

type rawSpec struct {
	Project        string      `yaml:"project"`
	Source         yaml.Node   `yaml:"source"`
	Sources        []yaml.Node `yaml:"sources"`
	SourceHydrator struct {
		DrySource yaml.Node `yaml:"drySource"`
	} `yaml:"sourceHydrator"`
	Destination struct {
		Server    string `yaml:"server"`
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace"`
	} `yaml:"destination"`
	SyncPolicy struct {
		Automated yaml.Node `yaml:"automated"`
	} `yaml:"syncPolicy"`
	IgnoreDifferences []IgnoreDifference `yaml:"ignoreDifferences"`
}

// parseApp reads a plain Application document.
func (d *discovery) parseApp(at origin, doc *yaml.Node) (App, error) {
	return d.buildApp(at, yamlnode.Value(doc, "metadata"), yamlnode.Value(doc, "spec"), "", scalarAt(doc, "metadata.namespace"))
}

// buildApp turns metadata and spec nodes (of an Application, or of an
// expanded ApplicationSet template) into an App. ns is the namespace the
// Application lives in: its own, or for a generated one the
// ApplicationSet's, which the controller always gives it.
func (d *discovery) buildApp(at origin, metaN, specN *yaml.Node, appSet, ns string) (App, error) {
	var meta rawMeta
	if err := plainyaml.Decode(metaN, &meta, plainMeta); err != nil {
		return App{}, at.errorf(0, "metadata: %s", err)
	}
	what := "application"
	if appSet != "" {
		what = "applicationset " + appSet + ": generated application"
	}
	if meta.Name == "" {
		return App{}, at.errorf(0, "%s without metadata.name", what)
	}
	ctx := func(err error) error { return at.errorf(0, "%s %s: %s", what, meta.Name, err) }
	var spec rawSpec
	if err := plainyaml.Decode(specN, &spec, plainSpec); err != nil {
		return App{}, ctx(err)
	}
	a := App{
		Env: at.env, Name: meta.Name, File: at.file, Doc: at.doc, Line: at.line,
		Kind: "Application", AppSet: appSet, Project: spec.Project,
		Namespace: spec.Destination.Namespace, Server: spec.Destination.Server,
		Annotations: meta.Annotations, Labels: meta.Labels,
		IgnoreDifferences: spec.IgnoreDifferences,
		Instance:          instanceName(ns, meta.Name, d.cfg.Argo.ControlPlaneNamespace()),
	}
	if appSet != "" {
		a.Kind = "ApplicationSet"
	}
	if spec.Destination.Name != "" {
		a.Server, a.ByName = spec.Destination.Name, true
	}
	var err error
	if a.Automated, a.Prune, err = automated(&spec.SyncPolicy.Automated); err != nil {
		return App{}, ctx(err)
	}
	if a.Sources, err = d.sources(&spec, a.Instance); err != nil {
		return App{}, ctx(err)
	}
	hydrated := spec.SourceHydrator.DrySource.Kind != 0 && !isNull(&spec.SourceHydrator.DrySource)
	a.MultiSource = len(spec.Sources) > 0 && !hydrated
	for _, s := range a.Sources {
		if s.Err != "" && a.Err == "" {
			a.Err = s.Err
		}
	}
	if a.Err == "" {
		a.Err = duplicateRef(a.Sources)
	}
	return a, nil
}

// duplicateRef is Argo CD's refusal of two sources with one ref, which
// fails the app when it is compared, not when it is applied.
func duplicateRef(sources []Source) string {
	refs := map[string]bool{}
	for i, s := range sources {
		if s.Ref == "" {
			continue
		}
		if refs[s.Ref] {
			return fmt.Sprintf("spec.sources[%d]: ref %q is used by two sources: invalid sources: multiple sources had the same `ref` key", i, s.Ref)
		}
		refs[s.Ref] = true
	}
	return ""
}

// instanceName is how Argo CD names an app outside its own namespace:
// "<namespace>_<name>". An Application whose manifest names no namespace
// is taken to be in the control plane's, where it is usually applied.
func instanceName(ns, name, controlPlane string) string {
	if ns == "" || ns == controlPlane {
		return name
	}
	return ns + "_" + name
}

// automated mirrors Argo CD: an automated block turns auto-sync on unless
// it says enabled: false (Argo CD 3); its prune flag matters only then.
func automated(n *yaml.Node) (on, prune bool, err error) {
	if n.Kind == 0 || isNull(n) {
		return false, false, nil
	}
	var v automatedBlock
	if err := plainyaml.Decode(n, &v, plainAutomated); err != nil {
		return false, false, fmt.Errorf("syncPolicy.automated: %w", err)
	}
	on = v.Enabled == nil || *v.Enabled
	return on, on && v.Prune, nil
}

// sources reads spec.sources, or spec.source when sources is empty, which
// is the precedence Argo CD's HasMultipleSources gives them.
//
// With spec.sourceHydrator, Argo CD renders the dry source, commits the
// result to the sync branch and applies that: what it applies is the
// dry source rendered, which is what this app renders.
func (d *discovery) sources(spec *rawSpec, instance string) ([]Source, error) {
	if dry := &spec.SourceHydrator.DrySource; dry.Kind != 0 && !isNull(dry) {
		s, err := d.source(dry, "spec.sourceHydrator.drySource", instance, true)
		if err != nil {
			return nil, err
		}
		return []Source{s}, nil
	}
	nodes := make([]*yaml.Node, 0, len(spec.Sources))
	for i := range spec.Sources {
		nodes = append(nodes, &spec.Sources[i])
	}
	field := "spec.sources"
	if len(nodes) == 0 {
		if spec.Source.Kind == 0 || isNull(&spec.Source) {
			return nil, fmt.Errorf("has neither spec.source nor spec.sources")
		}
		nodes, field = []*yaml.Node{&spec.Source}, "spec.source"
	}
	var out []Source
	for i, n := range nodes {
		name := field
		if field == "spec.sources" {
			name = fmt.Sprintf("%s[%d]", field, i)
		}
		s, err := d.source(n, name, instance, true)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// decodeInto decodes n into v, treating an absent node as empty.
func decodeInto(n *yaml.Node, v any) error {
	if isNull(n) {
		return nil
	}
	return n.Decode(v)
}
