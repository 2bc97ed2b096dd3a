package argo

import "go.yaml.in/yaml/v3"

// Decoding a generated Application's metadata, spec and sources with
// yaml.v3's reflection was most of what an ApplicationSet's expansion
// cost (48 apps per promote apply on the bench repository). The walks
// below read the same structs from the node tree directly, for the plain
// shapes every real manifest has: mappings with string keys, none
// repeated, string scalars for strings, true/false for booleans. Anything
// else (null list items, numbers where strings are expected, tags, merge
// keys, a repeated key, a wrong kind) makes a walk give up, and the caller
// decodes with yaml.v3 as before, so its results and its errors stay
// yaml.v3's own. FuzzPlainDecode checks that both agree wherever a walk
// does not give up.

// plainMapping calls set for every key and value of n, in order, when n
// is a mapping yaml.v3 decodes into a struct or map without a word. It
// reports false when n is not such a mapping or a set call fails.
func plainMapping(n *yaml.Node, set func(k string, v *yaml.Node) bool) bool {
	if n.Kind != yaml.MappingNode || n.ShortTag() != "!!map" || len(n.Content)%2 != 0 {
		return false
	}
	c := n.Content
	for i := 0; i < len(c); i += 2 {
		k := c[i]
		if !plainStr(k) || k.Value == "<<" {
			return false
		}
		for j := 0; j < i; j += 2 {
			if c[j].Value == k.Value {
				return false // yaml.v3 reports the repeated key
			}
		}
	}
	for i := 0; i < len(c); i += 2 {
		if !set(c[i].Value, c[i+1]) {
			return false
		}
	}
	return true
}

// plainStr reports a scalar yaml.v3 decodes into a string as its text.
func plainStr(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str"
}

// plainNull reports a null scalar, which yaml.v3 decodes into a struct
// field as the field's zero value (the fields are fresh here).
func plainNull(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!null" {
		return false
	}
	switch n.Value {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// plainString decodes a string field.
func plainString(n *yaml.Node, out *string) bool {
	if plainNull(n) {
		return true
	}
	if !plainStr(n) {
		return false
	}
	*out = n.Value
	return true
}

// plainBool decodes a bool field.
func plainBool(n *yaml.Node, out *bool) bool {
	if plainNull(n) {
		return true
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return false
	}
	switch n.Value {
	case "true", "True", "TRUE":
		*out = true
	case "false", "False", "FALSE":
		*out = false
	default:
		return false
	}
	return true
}

// plainStrings decodes a []string field: yaml.v3 makes an empty list a
// non-nil empty slice.
func plainStrings(n *yaml.Node, out *[]string) bool {
	if plainNull(n) {
		*out = nil
		return true
	}
	if n.Kind != yaml.SequenceNode || n.ShortTag() != "!!seq" {
		return false
	}
	s := make([]string, len(n.Content))
	for i, c := range n.Content {
		if !plainStr(c) {
			return false
		}
		s[i] = c.Value
	}
	*out = s
	return true
}

// plainStringMap decodes a map[string]string field.
func plainStringMap(n *yaml.Node, out *map[string]string) bool {
	if plainNull(n) {
		*out = nil
		return true
	}
	m := make(map[string]string, len(n.Content)/2)
	ok := plainMapping(n, func(k string, v *yaml.Node) bool {
		if !plainStr(v) {
			return false
		}
		m[k] = v.Value
		return true
	})
	if ok {
		*out = m
	}
	return ok
}

// plainNodes decodes a []yaml.Node field: each item is copied as it is.
func plainNodes(n *yaml.Node, out *[]yaml.Node) bool {
	if plainNull(n) {
		*out = nil
		return true
	}
	if n.Kind != yaml.SequenceNode || n.ShortTag() != "!!seq" {
		return false
	}
	s := make([]yaml.Node, len(n.Content))
	for i, c := range n.Content {
		s[i] = *c
	}
	*out = s
	return true
}

// plainStruct decodes a struct field (null leaves it zero).
func plainStruct(n *yaml.Node, set func(k string, v *yaml.Node) bool) bool {
	return plainNull(n) || plainMapping(n, set)
}

func plainMeta(n *yaml.Node, m *rawMeta) bool {
	return plainStruct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "name":
			return plainString(v, &m.Name)
		case "namespace":
			return plainString(v, &m.Namespace)
		case "annotations":
			return plainStringMap(v, &m.Annotations)
		case "labels":
			return plainStringMap(v, &m.Labels)
		}
		return true
	})
}

func plainSpec(n *yaml.Node, s *rawSpec) bool {
	return plainStruct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "project":
			return plainString(v, &s.Project)
		case "source":
			s.Source = *v
		case "sources":
			return plainNodes(v, &s.Sources)
		case "sourceHydrator":
			return plainStruct(v, func(k string, v *yaml.Node) bool {
				if k == "drySource" {
					s.SourceHydrator.DrySource = *v
				}
				return true
			})
		case "destination":
			d := &s.Destination
			return plainStruct(v, func(k string, v *yaml.Node) bool {
				switch k {
				case "server":
					return plainString(v, &d.Server)
				case "name":
					return plainString(v, &d.Name)
				case "namespace":
					return plainString(v, &d.Namespace)
				}
				return true
			})
		case "syncPolicy":
			return plainStruct(v, func(k string, v *yaml.Node) bool {
				if k == "automated" {
					s.SyncPolicy.Automated = *v
				}
				return true
			})
		case "ignoreDifferences":
			return plainIgnoreDifferences(v, &s.IgnoreDifferences)
		}
		return true
	})
}

func plainIgnoreDifferences(n *yaml.Node, out *[]IgnoreDifference) bool {
	if plainNull(n) {
		*out = nil
		return true
	}
	if n.Kind != yaml.SequenceNode || n.ShortTag() != "!!seq" {
		return false
	}
	s := make([]IgnoreDifference, len(n.Content))
	for i, c := range n.Content {
		d := &s[i]
		ok := plainMapping(c, func(k string, v *yaml.Node) bool {
			switch k {
			case "group":
				return plainString(v, &d.Group)
			case "kind":
				return plainString(v, &d.Kind)
			case "name":
				return plainString(v, &d.Name)
			case "namespace":
				return plainString(v, &d.Namespace)
			case "jsonPointers":
				return plainStrings(v, &d.JSONPointers)
			case "jqPathExpressions":
				return plainStrings(v, &d.JQPathExpressions)
			case "managedFieldsManagers":
				return plainStrings(v, &d.ManagedFieldsManagers)
			}
			return true
		})
		if !ok {
			return false
		}
	}
	*out = s
	return true
}

func plainSource(n *yaml.Node, r *rawSource) bool {
	return plainStruct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "repoURL":
			return plainString(v, &r.RepoURL)
		case "path":
			return plainString(v, &r.Path)
		case "targetRevision":
			return plainString(v, &r.TargetRevision)
		case "chart":
			return plainString(v, &r.Chart)
		case "ref":
			return plainString(v, &r.Ref)
		case "name":
			return plainString(v, &r.Name)
		case "tagPrefix":
			return plainString(v, &r.TagPrefix)
		case "helm":
			r.Helm = *v
		case "directory":
			r.Directory = *v
		case "kustomize":
			r.Kustomize = *v
		case "plugin":
			r.Plugin = *v
		}
		return true
	})
}

func plainHelm(n *yaml.Node, h *rawHelm) bool {
	return plainStruct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "releaseName":
			return plainString(v, &h.ReleaseName)
		case "valueFiles":
			return plainStrings(v, &h.ValueFiles)
		case "values":
			return plainString(v, &h.Values)
		case "valuesObject":
			h.ValuesObject = *v
		case "parameters":
			return plainParameters(v, &h.Parameters)
		case "fileParameters":
			return plainFileParameters(v, &h.FileParameters)
		case "ignoreMissingValueFiles":
			return plainBool(v, &h.IgnoreMissingValueFiles)
		case "skipCrds":
			return plainBool(v, &h.SkipCrds)
		case "passCredentials":
			return plainBool(v, &h.PassCredentials)
		case "version":
			return plainString(v, &h.Version)
		case "namespace":
			return plainString(v, &h.Namespace)
		case "kubeVersion":
			return plainString(v, &h.KubeVersion)
		case "apiVersions":
			return plainStrings(v, &h.APIVersions)
		case "skipTests":
			return plainBool(v, &h.SkipTests)
		case "skipSchemaValidation":
			return plainBool(v, &h.SkipSchemaValidation)
		}
		return true
	})
}

func plainParameters(n *yaml.Node, out *[]Parameter) bool {
	if plainNull(n) {
		*out = nil
		return true
	}
	if n.Kind != yaml.SequenceNode || n.ShortTag() != "!!seq" {
		return false
	}
	s := make([]Parameter, len(n.Content))
	for i, c := range n.Content {
		p := &s[i]
		ok := plainMapping(c, func(k string, v *yaml.Node) bool {
			switch k {
			case "name":
				return plainString(v, &p.Name)
			case "value":
				return plainString(v, &p.Value)
			case "forceString":
				return plainBool(v, &p.ForceString)
			}
			return true
		})
		if !ok {
			return false
		}
	}
	*out = s
	return true
}

func plainFileParameters(n *yaml.Node, out *[]FileParameter) bool {
	if plainNull(n) {
		*out = nil
		return true
	}
	if n.Kind != yaml.SequenceNode || n.ShortTag() != "!!seq" {
		return false
	}
	s := make([]FileParameter, len(n.Content))
	for i, c := range n.Content {
		p := &s[i]
		ok := plainMapping(c, func(k string, v *yaml.Node) bool {
			switch k {
			case "name":
				return plainString(v, &p.Name)
			case "path":
				return plainString(v, &p.Path)
			}
			return true
		})
		if !ok {
			return false
		}
	}
	*out = s
	return true
}

// automatedBlock is what automated reads of syncPolicy.automated.
type automatedBlock struct {
	Enabled *bool `yaml:"enabled"`
	Prune   bool  `yaml:"prune"`
}

func plainAutomated(n *yaml.Node, a *automatedBlock) bool {
	return plainStruct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "enabled":
			if plainNull(v) {
				a.Enabled = nil
				return true
			}
			b := new(bool)
			a.Enabled = b
			return plainBool(v, b)
		case "prune":
			return plainBool(v, &a.Prune)
		}
		return true
	})
}

// decodePlain decodes n into v with walk, or with yaml.v3 when walk gives
// up (v is reset first, so nothing of the walk is left in it). An absent
// or null node leaves v empty.
func decodePlain[T any](n *yaml.Node, v *T, walk func(*yaml.Node, *T) bool) error {
	if isNull(n) {
		return nil
	}
	if walk(n, v) {
		return nil
	}
	var zero T
	*v = zero
	return n.Decode(v)
}
