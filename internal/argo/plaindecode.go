package argo

import (
	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/plainyaml"
)

// Decoding a generated Application's metadata, spec and sources with
// yaml.v3's reflection was most of what an ApplicationSet's expansion
// cost (48 apps per promote apply on the bench repository). The walks
// below read the same structs from the node tree directly (plainyaml),
// and give up on anything but the plain shapes real manifests have; the
// caller then decodes with yaml.v3 as before, so results and errors stay
// yaml.v3's own. FuzzPlainDecode checks that both agree wherever a walk
// does not give up.

func plainMeta(n *yaml.Node, m *rawMeta) bool {
	return plainyaml.Struct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "name":
			return plainyaml.String(v, &m.Name)
		case "namespace":
			return plainyaml.String(v, &m.Namespace)
		case "annotations":
			return plainyaml.StringMap(v, &m.Annotations)
		case "labels":
			return plainyaml.StringMap(v, &m.Labels)
		}
		return true
	})
}

func plainSpec(n *yaml.Node, s *rawSpec) bool {
	return plainyaml.Struct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "project":
			return plainyaml.String(v, &s.Project)
		case "source":
			s.Source = *v
		case "sources":
			return plainyaml.Nodes(v, &s.Sources)
		case "sourceHydrator":
			return plainyaml.Key(v, "drySource", func(v *yaml.Node) bool {
				s.SourceHydrator.DrySource = *v
				return true
			})
		case "destination":
			d := &s.Destination
			return plainyaml.Struct(v, func(k string, v *yaml.Node) bool {
				switch k {
				case "server":
					return plainyaml.String(v, &d.Server)
				case "name":
					return plainyaml.String(v, &d.Name)
				case "namespace":
					return plainyaml.String(v, &d.Namespace)
				}
				return true
			})
		case "syncPolicy":
			return plainyaml.Key(v, "automated", func(v *yaml.Node) bool {
				s.SyncPolicy.Automated = *v
				return true
			})
		case "ignoreDifferences":
			return plainyaml.List(v, &s.IgnoreDifferences, plainIgnoreDifference)
		}
		return true
	})
}

func plainIgnoreDifference(d *IgnoreDifference, k string, v *yaml.Node) bool {
	switch k {
	case "group":
		return plainyaml.String(v, &d.Group)
	case "kind":
		return plainyaml.String(v, &d.Kind)
	case "name":
		return plainyaml.String(v, &d.Name)
	case "namespace":
		return plainyaml.String(v, &d.Namespace)
	case "jsonPointers":
		return plainyaml.Strings(v, &d.JSONPointers)
	case "jqPathExpressions":
		return plainyaml.Strings(v, &d.JQPathExpressions)
	case "managedFieldsManagers":
		return plainyaml.Strings(v, &d.ManagedFieldsManagers)
	}
	return true
}

func plainSource(n *yaml.Node, r *rawSource) bool {
	return plainyaml.Struct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "repoURL":
			return plainyaml.String(v, &r.RepoURL)
		case "path":
			return plainyaml.String(v, &r.Path)
		case "targetRevision":
			return plainyaml.String(v, &r.TargetRevision)
		case "chart":
			return plainyaml.String(v, &r.Chart)
		case "ref":
			return plainyaml.String(v, &r.Ref)
		case "name":
			return plainyaml.String(v, &r.Name)
		case "tagPrefix":
			return plainyaml.String(v, &r.TagPrefix)
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
	return plainyaml.Struct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "releaseName":
			return plainyaml.String(v, &h.ReleaseName)
		case "valueFiles":
			return plainyaml.Strings(v, &h.ValueFiles)
		case "values":
			return plainyaml.String(v, &h.Values)
		case "valuesObject":
			h.ValuesObject = *v
		case "parameters":
			return plainyaml.List(v, &h.Parameters, plainParameter)
		case "fileParameters":
			return plainyaml.List(v, &h.FileParameters, plainFileParameter)
		case "ignoreMissingValueFiles":
			return plainyaml.Bool(v, &h.IgnoreMissingValueFiles)
		case "skipCrds":
			return plainyaml.Bool(v, &h.SkipCrds)
		case "passCredentials":
			return plainyaml.Bool(v, &h.PassCredentials)
		case "version":
			return plainyaml.String(v, &h.Version)
		case "namespace":
			return plainyaml.String(v, &h.Namespace)
		case "kubeVersion":
			return plainyaml.String(v, &h.KubeVersion)
		case "apiVersions":
			return plainyaml.Strings(v, &h.APIVersions)
		case "skipTests":
			return plainyaml.Bool(v, &h.SkipTests)
		case "skipSchemaValidation":
			return plainyaml.Bool(v, &h.SkipSchemaValidation)
		}
		return true
	})
}

func plainParameter(p *Parameter, k string, v *yaml.Node) bool {
	switch k {
	case "name":
		return plainyaml.String(v, &p.Name)
	case "value":
		return plainyaml.String(v, &p.Value)
	case "forceString":
		return plainyaml.Bool(v, &p.ForceString)
	}
	return true
}

func plainFileParameter(p *FileParameter, k string, v *yaml.Node) bool {
	switch k {
	case "name":
		return plainyaml.String(v, &p.Name)
	case "path":
		return plainyaml.String(v, &p.Path)
	}
	return true
}

// automatedBlock is what automated reads of syncPolicy.automated.
type automatedBlock struct {
	Enabled *bool `yaml:"enabled"`
	Prune   bool  `yaml:"prune"`
}

func plainAutomated(n *yaml.Node, a *automatedBlock) bool {
	return plainyaml.Struct(n, func(k string, v *yaml.Node) bool {
		switch k {
		case "enabled":
			return plainyaml.BoolPtr(v, &a.Enabled)
		case "prune":
			return plainyaml.Bool(v, &a.Prune)
		}
		return true
	})
}
