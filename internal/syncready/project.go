package syncready

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// Project is the part of an AppProject's spec that decides what its apps
// may sync, each list with the line it was written at.
type Project struct {
	Name string
	File string
	Line int

	SourceRepos  []string
	Destinations []Destination
	// ClusterAllow is clusterResourceWhitelist: absent or empty, no
	// cluster-scoped object is permitted.
	ClusterAllow, ClusterDeny []ResourceRule
	// NamespaceAllow is namespaceResourceWhitelist: nil (absent) permits
	// every namespaced kind, an empty list none.
	NamespaceAllow, NamespaceDeny []ResourceRule

	lines map[string]int // spec field -> line, 0 if absent
}

// Destination is one spec.destinations entry; each field is a glob, "!"
// denies.
type Destination struct {
	Server, Name, Namespace string
	Line                    int
}

// ResourceRule is one group/kind entry of a resource list; Name (cluster
// lists only) is a glob of object names, "" meaning any.
type ResourceRule struct {
	Group, Kind, Name string
}

// where names the project and one of its fields as file:line.
func (p *Project) where(field string) string {
	line := p.lines[field]
	if line == 0 {
		return fmt.Sprintf("AppProject %s (%s:%d, no %s)", p.Name, p.File, p.Line, field)
	}
	return fmt.Sprintf("AppProject %s (%s:%d %s)", p.Name, p.File, line, field)
}

// ReadProjects parses the AppProjects of files in fsys, the first
// definition of a name winning. A file that cannot be read or parsed is an
// error naming it: a project it may hold must not be judged missing.
func ReadProjects(fsys fs.FS, files []string) (map[string]*Project, error) {
	out := map[string]*Project{}
	var errs []error
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading %s: %w", f, err))
			continue
		}
		ps, err := ParseProjects(f, data)
		if err != nil {
			errs = append(errs, err)
		}
		for _, p := range ps {
			if out[p.Name] == nil {
				out[p.Name] = p
			}
		}
	}
	return out, errors.Join(errs...)
}

// ParseProjects reads the AppProject documents of one file, skipping
// documents of other kinds.
func ParseProjects(file string, data []byte) ([]*Project, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*Project
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%s: %s", file, strings.Join(strings.Fields(err.Error()), " "))
		}
		if len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		if root.Kind != yaml.MappingNode || yamlnode.Scalar(yamlnode.Value(root, "kind")) != "AppProject" {
			continue
		}
		p, err := parseProject(file, root)
		if err != nil {
			return out, err
		}
		out = append(out, p)
	}
}

func parseProject(file string, root *yaml.Node) (*Project, error) {
	p := &Project{Name: yamlnode.Scalar(yamlnode.Value(yamlnode.Value(root, "metadata"), "name")),
		File: file, Line: root.Line, lines: map[string]int{}}
	if p.Name == "" {
		return nil, fmt.Errorf("%s:%d: AppProject without metadata.name", file, root.Line)
	}
	spec := yamlnode.Value(root, "spec")
	var raw struct {
		SourceRepos  []string `yaml:"sourceRepos"`
		Destinations []struct {
			Server    string `yaml:"server"`
			Name      string `yaml:"name"`
			Namespace string `yaml:"namespace"`
		} `yaml:"destinations"`
		ClusterAllow   []ResourceRule `yaml:"clusterResourceWhitelist"`
		ClusterDeny    []ResourceRule `yaml:"clusterResourceBlacklist"`
		NamespaceAllow []ResourceRule `yaml:"namespaceResourceWhitelist"`
		NamespaceDeny  []ResourceRule `yaml:"namespaceResourceBlacklist"`
	}
	if spec == nil {
		return p, nil
	}
	if err := spec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s:%d: AppProject %s: %s", file, spec.Line, p.Name, strings.Join(strings.Fields(err.Error()), " "))
	}
	for _, f := range []string{"sourceRepos", "destinations", "clusterResourceWhitelist", "clusterResourceBlacklist",
		"namespaceResourceWhitelist", "namespaceResourceBlacklist"} {
		for i := 0; spec.Kind == yaml.MappingNode && i+1 < len(spec.Content); i += 2 {
			if spec.Content[i].Value == f {
				p.lines[f] = spec.Content[i].Line // the key's line: the list may start below
			}
		}
	}
	p.SourceRepos, p.ClusterAllow, p.ClusterDeny = raw.SourceRepos, raw.ClusterAllow, raw.ClusterDeny
	p.NamespaceAllow, p.NamespaceDeny = raw.NamespaceAllow, raw.NamespaceDeny
	// A present whitelist, even empty or null, is not nil (see
	// IsGroupKindNamePermitted: only an absent one permits every kind).
	if v := yamlnode.Value(spec, "namespaceResourceWhitelist"); v != nil && v.Tag != "!!null" && p.NamespaceAllow == nil {
		p.NamespaceAllow = []ResourceRule{}
	}
	var dests *yaml.Node
	if dests = yamlnode.Value(spec, "destinations"); dests != nil && dests.Kind == yaml.SequenceNode {
		for i, d := range raw.Destinations {
			p.Destinations = append(p.Destinations, Destination{Server: d.Server, Name: d.Name, Namespace: d.Namespace,
				Line: dests.Content[i].Line})
		}
	}
	return p, nil
}
