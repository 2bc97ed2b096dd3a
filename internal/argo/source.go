package argo

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/plainyaml"
	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// Field lists follow Argo CD's v1alpha1 types (3.x); see checkKeys for why
// unknown fields are errors.
var (
	sourceFields = []string{"repoURL", "path", "targetRevision", "helm", "kustomize",
		"directory", "plugin", "chart", "ref", "name", "tagPrefix"}
	// drySourceFields are a sourceHydrator's drySource's.
	drySourceFields = []string{"repoURL", "targetRevision", "path", "helm", "kustomize", "directory", "plugin"}
	helmFields      = []string{"valueFiles", "parameters", "releaseName", "values", "fileParameters",
		"version", "passCredentials", "ignoreMissingValueFiles", "skipCrds", "valuesObject",
		"namespace", "kubeVersion", "apiVersions", "skipTests", "skipSchemaValidation"}
	directoryFields = []string{"recurse", "jsonnet", "exclude", "include", "disableExtensionFilter"}
)

type rawSource struct {
	RepoURL        string    `yaml:"repoURL"`
	Path           string    `yaml:"path"`
	TargetRevision string    `yaml:"targetRevision"`
	Chart          string    `yaml:"chart"`
	Ref            string    `yaml:"ref"`
	Name           string    `yaml:"name"`
	TagPrefix      string    `yaml:"tagPrefix"`
	Helm           yaml.Node `yaml:"helm"`
	Directory      yaml.Node `yaml:"directory"`
	Kustomize      yaml.Node `yaml:"kustomize"`
	Plugin         yaml.Node `yaml:"plugin"`
}

type rawHelm struct {
	ReleaseName             string          `yaml:"releaseName"`
	ValueFiles              []string        `yaml:"valueFiles"`
	Values                  string          `yaml:"values"`
	ValuesObject            yaml.Node       `yaml:"valuesObject"`
	Parameters              []Parameter     `yaml:"parameters"`
	FileParameters          []FileParameter `yaml:"fileParameters"`
	IgnoreMissingValueFiles bool            `yaml:"ignoreMissingValueFiles"`
	SkipCrds                bool            `yaml:"skipCrds"`
	PassCredentials         bool            `yaml:"passCredentials"`
	Version                 string          `yaml:"version"`
	Namespace               string          `yaml:"namespace"`
	KubeVersion             string          `yaml:"kubeVersion"`
	APIVersions             []string        `yaml:"apiVersions"`
	SkipTests               bool            `yaml:"skipTests"`
	SkipSchemaValidation    bool            `yaml:"skipSchemaValidation"`
}

// source decodes one source node and derives its kind.
//
// A path source of this repository first takes the parameter override
// files of its directory (.argocd-source.yaml, then
// .argocd-source-<instance>.yaml), as the repo-server does before it
// looks at the source; overrides is false once they are merged.
func (d *discovery) source(n *yaml.Node, field, instance string, overrides bool) (Source, error) {
	fields := sourceFields
	if field == "spec.sourceHydrator.drySource" {
		fields = drySourceFields
	}
	if err := checkKeys(n, field, fields...); err != nil {
		return Source{}, err
	}
	var r rawSource
	if err := plainyaml.Decode(n, &r, plainSource); err != nil {
		return Source{}, fmt.Errorf("%s: %w", field, err)
	}
	p, err := cleanRel(r.Path)
	if err != nil {
		return Source{}, fmt.Errorf("%s.path: %w", field, err)
	}
	s := Source{RepoURL: r.RepoURL, Chart: r.Chart, TargetRevision: r.TargetRevision,
		Path: p, Ref: r.Ref, Name: r.Name, TagPrefix: r.TagPrefix, field: field}
	if s.Helm, err = parseHelm(&r.Helm, field+".helm"); err != nil {
		return Source{}, err
	}
	if s.Directory, err = parseDirectory(&r.Directory, field+".directory"); err != nil {
		return Source{}, err
	}
	if s.Kustomize, err = canonicalYAML(present(&r.Kustomize)); err != nil {
		return Source{}, fmt.Errorf("%s.kustomize: %w", field, err)
	}
	if s.Plugin, err = canonicalYAML(present(&r.Plugin)); err != nil {
		return Source{}, fmt.Errorf("%s.plugin: %w", field, err)
	}
	if overrides && s.Chart != "" || !SameRepo(s.RepoURL, d.cfg.RepoURL) || s.Kind == KindRef {
		overrides = false
	}
	if overrides && !(s.Ref != "" && s.Path == "") {
		merged, err := applyOverrides(d.fsys, dirOf(s.Path), instance, n)
		if err != nil {
			// the repo-server fails such an app when it renders it
			s.Kind, s.Err = KindUnknown, fmt.Sprintf("%s: error while parsing source parameters: %s", field, err)
			s.raw = keepRaw(s, n)
			return s, nil
		}
		if merged != n {
			return d.source(merged, field, instance, false)
		}
	}
	if s.Kind, err = d.kind(&s); err != nil {
		// Argo CD accepts such an Application and fails when it renders
		// it: so does this app, and nothing else.
		s.Kind, s.Err = KindUnknown, fmt.Sprintf("%s: %s", field, err)
	}
	s.raw = keepRaw(s, n)
	return s, nil
}

// keepRaw is the node a Source keeps for Resolve: only a path source can
// be of another repository and read again there. The node is copied, as
// n points into the slice of all the document's sources, which the
// copy's subtree does not hold: a fleet's thousands of generated chart
// apps would otherwise keep every templated document alive.
func keepRaw(s Source, n *yaml.Node) *yaml.Node {
	if s.Chart != "" || s.Kind == KindRef {
		return nil
	}
	c := *n
	return &c
}

func present(n *yaml.Node) *yaml.Node {
	if n.Kind == 0 {
		return nil
	}
	return n
}

func parseHelm(n *yaml.Node, field string) (*Helm, error) {
	if n.Kind == 0 || isNull(n) {
		return nil, nil
	}
	if err := checkKeys(n, field, helmFields...); err != nil {
		return nil, err
	}
	for _, list := range []string{"parameters", "fileParameters"} {
		if l := yamlnode.Value(n, list); l != nil {
			allowed := []string{"name", "value", "forceString"}
			if list == "fileParameters" {
				allowed = []string{"name", "path"}
			}
			for _, item := range l.Content {
				if err := checkKeys(item, field+"."+list, allowed...); err != nil {
					return nil, err
				}
			}
		}
	}
	var r rawHelm
	if err := plainyaml.Decode(n, &r, plainHelm); err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	h := Helm{ReleaseName: r.ReleaseName, ValueFiles: r.ValueFiles, Values: r.Values,
		Parameters: r.Parameters, FileParameters: r.FileParameters,
		IgnoreMissingValueFiles: r.IgnoreMissingValueFiles, SkipCrds: r.SkipCrds,
		PassCredentials: r.PassCredentials, Version: r.Version, Namespace: r.Namespace,
		KubeVersion: r.KubeVersion, APIVersions: r.APIVersions, SkipTests: r.SkipTests,
		SkipSchemaValidation: r.SkipSchemaValidation}
	vo, err := canonicalYAML11(present(&r.ValuesObject))
	if err != nil {
		return nil, fmt.Errorf("%s.valuesObject: %w", field, err)
	}
	h.ValuesObject = vo
	return &h, nil
}

func parseDirectory(n *yaml.Node, field string) (*Directory, error) {
	if n.Kind == 0 || isNull(n) {
		return nil, nil
	}
	if err := checkKeys(n, field, directoryFields...); err != nil {
		return nil, err
	}
	var r struct {
		Recurse                bool      `yaml:"recurse"`
		Include                string    `yaml:"include"`
		Exclude                string    `yaml:"exclude"`
		Jsonnet                yaml.Node `yaml:"jsonnet"`
		DisableExtensionFilter bool      `yaml:"disableExtensionFilter"`
	}
	if err := n.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	j, err := canonicalYAML(present(&r.Jsonnet))
	if err != nil {
		return nil, fmt.Errorf("%s.jsonnet: %w", field, err)
	}
	return &Directory{Recurse: r.Recurse, Include: r.Include, Exclude: r.Exclude, Jsonnet: j,
		DisableExtensionFilter: r.DisableExtensionFilter}, nil
}

// cleanRel cleans a repository-relative slash path. Argo CD refuses paths
// that leave the repository.
func cleanRel(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	c := path.Clean(strings.TrimLeft(p, "/"))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%q leaves the repository", p)
	}
	if c == "." {
		return "", nil
	}
	return c, nil
}

// kind derives a source's kind the way Argo CD does: a ref-only source
// renders nothing; a chart is Helm; one explicit type block decides;
// otherwise the repo-server looks for a kustomization or Chart.yaml at the
// top of the path and falls back to a plain directory.
func (d *discovery) kind(s *Source) (string, error) {
	if s.Ref != "" && s.Path == "" && s.Chart == "" {
		return KindRef, nil
	}
	var explicit []string
	for _, b := range []struct {
		set  bool
		kind string
	}{{s.Kustomize != nil, KindKustomize}, {s.Helm != nil, KindHelm},
		{s.Directory != nil, KindDirectory}, {s.Plugin != nil, KindPlugin}} {
		if b.set {
			explicit = append(explicit, b.kind)
		}
	}
	if len(explicit) > 1 {
		return "", fmt.Errorf("multiple source types defined: %s", strings.Join(explicit, ","))
	}
	if s.Chart != "" {
		if len(explicit) == 1 && explicit[0] != KindHelm {
			return "", fmt.Errorf("chart %s has a %s block", s.Chart, explicit[0])
		}
		return KindHelm, nil
	}
	if len(explicit) == 1 {
		return explicit[0], d.checkPath(s)
	}
	if !SameRepo(s.RepoURL, d.cfg.RepoURL) {
		return KindUnknown, nil
	}
	if err := d.checkPath(s); err != nil {
		return "", err
	}
	return detectKind(d.fsys, dirOf(s.Path))
}

func dirOf(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// checkPath verifies an in-repo path source exists at this revision, as
// the repo-server does.
func (d *discovery) checkPath(s *Source) error {
	if !SameRepo(s.RepoURL, d.cfg.RepoURL) {
		return nil
	}
	if _, err := fs.ReadDir(d.fsys, dirOf(s.Path)); err != nil {
		return fmt.Errorf("path %q does not exist in this revision", s.Path)
	}
	return nil
}

func detectKind(fsys fs.FS, dir string) (string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return "", fmt.Errorf("path %q does not exist in this revision", dir)
	}
	kind := KindDirectory
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		switch name := e.Name(); {
		case name == "kustomization.yaml" || name == "kustomization.yml" || name == "Kustomization":
			return KindKustomize, nil
		case strings.HasSuffix(name, "Chart.yaml"):
			kind = KindHelm
		}
	}
	return kind, nil
}
