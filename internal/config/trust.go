package config

import (
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Trusted is what .promote.yaml says that decides where a credential
// goes, what a renderer may read or run, which cluster `manifestdiff
// --live` talks to, and what a reviewer is shown. A merge request is
// input, never configuration: manifestdiff reads these settings from the
// trusted side only (the target branch's .promote.yaml, the merge
// request's base), for both revisions, as Argo CD reads them from
// argocd-cm and its registered repositories, never from the app's
// repository. Every other key is read per revision (see Deployment) or at
// head.
type Trusted struct {
	// RepoURL is the GitOps repository: the one host the environment's
	// git tokens go to, and the URL sources name it by.
	RepoURL string
	// ValuesFileSchemes is argocd.helm.valuesFileSchemes: which URL
	// schemes a value file may be fetched over.
	ValuesFileSchemes *string
	// BuildOptions is argocd.kustomize.buildOptions: what kustomize may
	// load (--load-restrictor) and run (--enable-helm, plugins).
	BuildOptions string
	// Live is which envs --live compares, and through which context.
	Live []LiveEnv
	// Ignore is which fields the diff leaves out: a merge request that
	// could set it could hide its own change.
	Ignore []string
	// LocalRepos are the file:// URLs (prefixes) sources may name; none
	// by default, since a local path reads this machine, not the forge.
	LocalRepos []string
	// SyncReadiness is how sync-readiness findings are judged: a merge
	// request that could set it could silence its own findings.
	SyncReadiness SyncReadiness
}

// TrustedKeys names every trusted setting as written in .promote.yaml, in
// the order the docs list them.
var TrustedKeys = []string{"repoURL", "argocd.helm.valuesFileSchemes", "argocd.kustomize.buildOptions",
	"live", "ignore", "localRepos", "syncReadiness"}

// Trusted returns c's trusted settings.
func (c *Config) Trusted() Trusted {
	return Trusted{RepoURL: c.RepoURL, ValuesFileSchemes: c.Argo.Helm.ValuesFileSchemes,
		BuildOptions: c.Argo.Kustomize.BuildOptions, Live: slices.Clone(c.Live), Ignore: slices.Clone(c.Ignore),
		LocalRepos: slices.Clone(c.LocalRepos), SyncReadiness: c.SyncReadiness.clone()}
}

// WithTrusted returns a copy of c whose trusted settings are t.
func (c *Config) WithTrusted(t Trusted) *Config {
	out := *c
	out.RepoURL = t.RepoURL
	out.Argo.Helm.ValuesFileSchemes = t.ValuesFileSchemes
	out.Argo.Kustomize.BuildOptions = t.BuildOptions
	out.Live, out.Ignore, out.LocalRepos = slices.Clone(t.Live), slices.Clone(t.Ignore), slices.Clone(t.LocalRepos)
	out.SyncReadiness = t.SyncReadiness.clone()
	return &out
}

// Changed lists the keys (TrustedKeys' spelling) whose value differs
// between t and o: only names, never values, so that a caller may show
// them anywhere.
func (t Trusted) Changed(o Trusted) []string {
	var out []string
	differs := []bool{t.RepoURL != o.RepoURL, !reflect.DeepEqual(t.ValuesFileSchemes, o.ValuesFileSchemes),
		t.BuildOptions != o.BuildOptions, !slices.Equal(t.Live, o.Live), !slices.Equal(t.Ignore, o.Ignore),
		!slices.Equal(t.LocalRepos, o.LocalRepos), !t.SyncReadiness.Equal(o.SyncReadiness)}
	for i, d := range differs {
		if d {
			out = append(out, TrustedKeys[i])
		}
	}
	return out
}

// ParseTrusted reads only the trusted settings of a .promote.yaml,
// validated as Parse validates them; the file's other keys are ignored,
// so the target branch's file gives its trusted settings even when this
// version no longer knows one of its other keys.
func ParseTrusted(data []byte) (Trusted, error) {
	var raw struct {
		RepoURL string `yaml:"repoURL"`
		Argo    struct {
			Helm      ArgoHelm      `yaml:"helm"`
			Kustomize ArgoKustomize `yaml:"kustomize"`
		} `yaml:"argocd"`
		Live       []LiveEnv     `yaml:"live"`
		Ignore     []string      `yaml:"ignore"`
		LocalRepos []string      `yaml:"localRepos"`
		SyncReady  SyncReadiness `yaml:"syncReadiness"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return Trusted{}, fmt.Errorf("parsing %s: %s", FileName, oneLine(err))
	}
	c := &Config{RepoURL: raw.RepoURL, Live: raw.Live, Ignore: raw.Ignore, LocalRepos: raw.LocalRepos, SyncReadiness: raw.SyncReady}
	c.Argo.Helm, c.Argo.Kustomize = raw.Argo.Helm, raw.Argo.Kustomize
	var doc yaml.Node
	at := locator{}
	if yaml.Unmarshal(data, &doc) == nil && len(doc.Content) > 0 {
		at.root = doc.Content[0]
	}
	if c.RepoURL == "" {
		return Trusted{}, invalid(at.line("repoURL"), "repoURL is required")
	}
	if err := c.validateLocalRepos(at); err != nil {
		return Trusted{}, err
	}
	if err := c.SyncReadiness.validate(at, nil); err != nil {
		return Trusted{}, err
	}
	return c.Trusted(), nil
}

// validateLocalRepos: each entry is a file:// URL of an absolute
// directory, the only form that names a place on this machine without
// depending on where the tool runs.
func (c *Config) validateLocalRepos(at locator) error {
	for i, r := range c.LocalRepos {
		rest, ok := strings.CutPrefix(r, "file://")
		if !ok || !strings.HasPrefix(rest, "/") || path.Clean(rest) != strings.TrimSuffix(rest, "/") && rest != "/" {
			return invalid(at.line("localRepos", i), "localRepos: %q is not a file:// URL of an absolute, clean path (e.g. file:///srv/git/)", r)
		}
	}
	return nil
}
