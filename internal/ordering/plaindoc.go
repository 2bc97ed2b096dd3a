package ordering

import (
	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/plainyaml"
)

// plainDoc reads an Argo CD document into rawDoc by walking its nodes
// (plainyaml), several times cheaper than yaml.v3's reflection, which
// objectsOf falls back to where the walk gives up. FuzzPlainDoc checks
// that both agree wherever the walk does not give up.
func plainDoc(n *yaml.Node, d *rawDoc) bool {
	return plainyaml.Struct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "apiVersion":
			return plainyaml.String(v, &d.APIVersion)
		case "kind":
			return plainyaml.String(v, &d.Kind)
		case "metadata":
			return plainMeta(v, &d.Metadata)
		case "spec":
			s := &d.Spec
			return plainyaml.Struct(v, func(k string, v *yaml.Node) bool {
				switch k {
				case "syncPolicy":
					return plainSyncPolicy(v, &s.SyncPolicy)
				case "template":
					return plainyaml.Struct(v, func(k string, v *yaml.Node) bool {
						switch k {
						case "metadata":
							return plainMeta(v, &s.Template.Metadata)
						case "spec":
							return plainyaml.Key(v, "syncPolicy", func(v *yaml.Node) bool {
								return plainSyncPolicy(v, &s.Template.Spec.SyncPolicy)
							})
						}
						return true
					})
				case "strategy":
					return plainStrategy(v, &s.Strategy)
				}
				return true
			})
		}
		return true
	})
}

func plainMeta(n *yaml.Node, m *rawMeta) bool {
	return plainyaml.Struct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "name":
			return plainyaml.String(v, &m.Name)
		case "annotations":
			return plainyaml.StringMap(v, &m.Annotations)
		}
		return true
	})
}

func plainSyncPolicy(n *yaml.Node, p *rawSyncPolicy) bool {
	return plainyaml.Key(n, "automated", func(v *yaml.Node) bool {
		if plainyaml.Null(v) {
			p.Automated = nil
			return true
		}
		p.Automated = &struct {
			Enabled *bool `yaml:"enabled"`
		}{}
		a := p.Automated
		return plainyaml.Mapping(v, func(k string, v *yaml.Node) bool {
			return k != "enabled" || plainyaml.BoolPtr(v, &a.Enabled)
		})
	})
}

func plainStrategy(n *yaml.Node, out **rawStrategy) bool {
	if plainyaml.Null(n) {
		*out = nil
		return true
	}
	s := &rawStrategy{}
	*out = s
	return plainyaml.Mapping(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "type":
			return plainyaml.String(v, &s.Type)
		case "rollingSync":
			return plainyaml.Key(v, "steps", func(v *yaml.Node) bool {
				return plainyaml.List(v, &s.RollingSync.Steps, plainStep)
			})
		}
		return true
	})
}

func plainStep(st *rawStep, k string, v *yaml.Node) bool {
	switch k {
	case "matchExpressions":
		return plainyaml.List(v, &st.MatchExpressions, plainExpression)
	case "maxUpdate":
		st.MaxUpdate = *v
	}
	return true
}

func plainExpression(e *MatchExpression, k string, v *yaml.Node) bool {
	switch k {
	case "key":
		return plainyaml.String(v, &e.Key)
	case "operator":
		return plainyaml.String(v, &e.Operator)
	case "values":
		return plainyaml.Strings(v, &e.Values)
	}
	return true
}
