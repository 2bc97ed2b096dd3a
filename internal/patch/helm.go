package patch

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// HelmSource is one Argo CD source with a `chart` key.
type HelmSource struct {
	Doc        int
	Kind, Name string // the document's kind and metadata.name
	Path       string // e.g. "spec.sources[0]"
	Chart      string
	RepoURL    string
	Revision   Target // the targetRevision scalar
	// HasRevision is false when the source has no targetRevision key.
	HasRevision bool
}

// sourceParents are where Argo CD keeps sources: an Application's spec and
// the Application template of an ApplicationSet.
var sourceParents = [][]string{{"spec"}, {"spec", "template", "spec"}}

func (t *tree) helmSources() ([]HelmSource, error) {
	var out []HelmSource
	for i, doc := range t.docs {
		if doc.Kind != yaml.MappingNode {
			continue
		}
		kind := scalarAt(doc, "kind")
		name := scalarAt(doc, "metadata", "name")
		for _, parent := range sourceParents {
			for _, src := range sourcesUnder(doc, parent) {
				hs, ok, err := t.helmSource(src, i)
				if err != nil {
					return nil, err
				}
				if ok {
					hs.Kind, hs.Name = kind, name
					out = append(out, hs)
				}
			}
		}
	}
	return out, nil
}

// sourcesUnder returns the source mappings of <parent>.source and
// <parent>.sources[].
func sourcesUnder(doc *yaml.Node, parent []string) []*yaml.Node {
	spec := resolve(lookup(doc, parent))
	if spec == nil || spec.Kind != yaml.MappingNode {
		return nil
	}
	var srcs []*yaml.Node
	if s := yamlnode.Value(spec, "source"); s != nil {
		srcs = append(srcs, s)
	}
	if seq := resolve(yamlnode.Value(spec, "sources")); seq != nil && seq.Kind == yaml.SequenceNode {
		srcs = append(srcs, seq.Content...)
	}
	return srcs
}

// helmSource describes src when it is a mapping with a chart key.
func (t *tree) helmSource(src *yaml.Node, doc int) (HelmSource, bool, error) {
	m := resolve(src)
	if m == nil || m.Kind != yaml.MappingNode || yamlnode.Value(m, "chart") == nil {
		return HelmSource{}, false, nil
	}
	hs := HelmSource{Doc: doc, Path: t.pathOf(src)}
	var err error
	if hs.Chart, err = scalarKey(m, "chart", hs.Path); err != nil {
		return HelmSource{}, false, err
	}
	if hs.RepoURL, err = scalarKey(m, "repoURL", hs.Path); err != nil {
		return HelmSource{}, false, err
	}
	if rev := yamlnode.Value(m, "targetRevision"); rev != nil {
		if r := resolve(rev); r == nil || r.Kind != yaml.ScalarNode {
			return HelmSource{}, false, fmt.Errorf("%s.targetRevision line %d: %w", hs.Path, rev.Line, ErrNotScalar)
		}
		hs.Revision, hs.HasRevision = t.newTarget(rev, doc), true
	}
	return hs, true, nil
}

// scalarKey returns the scalar value of key in m ("" when absent).
func scalarKey(m *yaml.Node, key, path string) (string, error) {
	v := yamlnode.Value(m, key)
	if v == nil {
		return "", nil
	}
	r := resolve(v)
	if r == nil || r.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("%s.%s line %d: %w", path, key, v.Line, ErrNotScalar)
	}
	return r.Value, nil
}

// scalarAt returns the scalar at keys, or "" when there is none.
func scalarAt(doc *yaml.Node, keys ...string) string {
	if r := resolve(lookup(doc, keys)); r != nil && r.Kind == yaml.ScalarNode {
		return r.Value
	}
	return ""
}
