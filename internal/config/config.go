// Package config loads and validates .promote.yaml, the one file that tells
// promote and manifestdiff how a GitOps repository is laid out.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/ordering/ordercfg"
)

// FileName is the config file's name at the repository root.
const FileName = ".promote.yaml"

// ErrInvalid marks a config that parses but breaks a rule of the schema.
var ErrInvalid = errors.New("invalid config")

// Config is the parsed .promote.yaml.
type Config struct {
	RepoURL      string   `yaml:"repoURL"`
	Environments []string `yaml:"environments"`
	Versions     string   `yaml:"versions"`
	Manifests    []string `yaml:"manifests"`
	// Components keeps the file's order: plans and reports list components
	// in the order the user wrote them.
	Components []Component `yaml:"-"`

	// KubeVersion and APIVersions feed Helm's .Capabilities when
	// manifestdiff renders, as Argo CD's repo-server would.
	KubeVersion string   `yaml:"kubeVersion,omitempty"`
	APIVersions []string `yaml:"apiVersions,omitempty"`
	// Ignore lists field paths manifestdiff leaves out of its diffs.
	Ignore []string `yaml:"ignore,omitempty"`
	// Ordering configures the sync-wave and rollout checks.
	Ordering ordercfg.Config `yaml:"ordering,omitempty"`
	// Argo describes the Argo CD installation manifestdiff renders like.
	Argo ArgoCD `yaml:"argocd,omitempty"`
	// Live lists the environments `manifestdiff --live` may compare with
	// their cluster (QA in the spec: the only one a runner may reach).
	Live []LiveEnv `yaml:"live,omitempty"`
	// Gates are the deploy-aware checks of promotions, by target env.
	Gates map[string]Gate `yaml:"-"`
	// AppProjects are globs ({env} allowed) of files holding AppProjects,
	// read for their syncWindows besides each env's manifests.
	AppProjects []string `yaml:"appProjects,omitempty"`
	// LocalRepos are the file:// URLs (prefixes) sources may name (see
	// Trusted).
	LocalRepos []string `yaml:"localRepos,omitempty"`
	// SyncReadiness tunes manifestdiff's sync-readiness checks (trusted).
	SyncReadiness SyncReadiness `yaml:"syncReadiness,omitempty"`
}

// Component maps a key path of the versions file to the Helm chart whose
// targetRevision its chartVersion pins.
type Component struct {
	Key   string   // as written: "dlt-node.backend"
	Path  []string // Key split on dots
	Chart string
}

type rawConfig struct {
	RepoURL      string          `yaml:"repoURL"`
	Environments []string        `yaml:"environments"`
	Versions     string          `yaml:"versions"`
	Manifests    []string        `yaml:"manifests"`
	Components   yaml.Node       `yaml:"components"`
	KubeVersion  string          `yaml:"kubeVersion"`
	APIVersions  []string        `yaml:"apiVersions"`
	Ignore       []string        `yaml:"ignore"`
	Ordering     ordercfg.Config `yaml:"ordering"`
	Argo         ArgoCD          `yaml:"argocd"`
	Live         []LiveEnv       `yaml:"live"`
	Gates        yaml.Node       `yaml:"gates"`
	AppProjects  []string        `yaml:"appProjects"`
	LocalRepos   []string        `yaml:"localRepos"`
	SyncReady    SyncReadiness   `yaml:"syncReadiness"`
}

type rawComponent struct {
	Chart string `yaml:"chart"`
}

// Load reads FileName from the repository root dir.
func Load(dir string) (*Config, error) {
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("reading %s: %w (run 'promote init' to draft one)", FileName, os.ErrNotExist)
		}
		return nil, fmt.Errorf("reading %s: %w", FileName, err)
	}
	return Parse(data)
}

// Parse decodes and validates config bytes. Unknown keys are an error so a
// typo never silently disables a setting.
func Parse(data []byte) (*Config, error) {
	var raw rawConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		if uerr := unknownKeys(err); uerr != err {
			return nil, uerr
		}
		return nil, fmt.Errorf("parsing %s: %s%s", FileName, oneLine(err), flowHint(data))
	}
	// The node tree, for the lines of the rules checked below: the file is
	// small, and a yaml.Node cannot be decoded with KnownFields.
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parsing %s: %s", FileName, oneLine(err))
	}
	at := locator{}
	if len(doc.Content) > 0 {
		at.root = doc.Content[0]
	}
	c := &Config{
		RepoURL: raw.RepoURL, Environments: raw.Environments, Versions: raw.Versions,
		Manifests: raw.Manifests, KubeVersion: raw.KubeVersion, APIVersions: raw.APIVersions, Ignore: raw.Ignore,
		Ordering: raw.Ordering, Argo: raw.Argo, Live: raw.Live, AppProjects: raw.AppProjects,
		LocalRepos: raw.LocalRepos, SyncReadiness: raw.SyncReady,
	}
	comps, err := parseComponents(&raw.Components)
	if err != nil {
		return nil, err
	}
	c.Components = comps
	if c.Gates, err = parseGates(&raw.Gates); err != nil {
		return nil, err
	}
	if err := c.validate(at); err != nil {
		return nil, err
	}
	return c, nil
}

func parseComponents(n *yaml.Node) ([]Component, error) {
	if n.Kind == 0 {
		return nil, invalid(0, "components: missing")
	}
	if n.Kind != yaml.MappingNode {
		return nil, invalid(n.Line, "components: must be a mapping of versions key path to {chart: NAME}")
	}
	var out []Component
	first := map[string]int{} // key -> line: a yaml.Node keeps repeated keys
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if line, ok := first[k.Value]; ok {
			return nil, invalid(k.Line, "components: %q is listed twice (first at line %d)", k.Value, line)
		}
		first[k.Value] = k.Line
		var rc rawComponent
		if err := v.Decode(&rc); err != nil {
			return nil, invalid(v.Line, "components.%s: %s", k.Value, oneLine(err))
		}
		if err := knownKeys(v, "chart"); err != nil {
			return nil, invalid(v.Line, "components.%s: %v", k.Value, err)
		}
		if rc.Chart == "" {
			return nil, invalid(v.Line, "components.%s: chart is required", k.Value)
		}
		path := strings.Split(k.Value, ".")
		for _, p := range path {
			if p == "" {
				return nil, invalid(k.Line, "components: key %q has an empty path segment", k.Value)
			}
		}
		out = append(out, Component{Key: k.Value, Path: path, Chart: rc.Chart})
	}
	return out, nil
}

func knownKeys(n *yaml.Node, allowed ...string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("must be a mapping like {chart: NAME}")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		ok := false
		for _, a := range allowed {
			ok = ok || n.Content[i].Value == a
		}
		if !ok {
			return fmt.Errorf("unknown key %q", n.Content[i].Value)
		}
	}
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func (c *Config) validate(at locator) error {
	if c.RepoURL == "" {
		return invalid(at.line("repoURL"), "repoURL is required")
	}
	if len(c.Environments) == 0 {
		return invalid(at.line("environments"), "environments: at least one is required")
	}
	seen := map[string]int{}
	for i, e := range c.Environments {
		if !envName.MatchString(e) {
			return invalid(at.line("environments", i), "environments: %q is not a valid name", e)
		}
		if j, ok := seen[e]; ok {
			return invalid(at.line("environments", i), "environments: %q is listed twice (first at line %d)", e, at.line("environments", j))
		}
		seen[e] = i
	}
	if !strings.Contains(c.Versions, "{env}") {
		return invalid(at.line("versions"), "versions: %q must contain {env}", c.Versions)
	}
	if len(c.Manifests) == 0 {
		return invalid(at.line("manifests"), "manifests: at least one glob is required")
	}
	for i, m := range c.Manifests {
		if _, err := filepath.Match(strings.ReplaceAll(m, "{env}", "x"), ""); err != nil {
			return invalid(at.line("manifests", i), "manifests: bad glob %q", m)
		}
	}
	if len(c.Components) == 0 {
		return invalid(at.line("components"), "components: at least one is required")
	}
	if err := c.Argo.validate(at); err != nil {
		return err
	}
	if err := c.validateLive(at); err != nil {
		return err
	}
	if err := c.validateLocalRepos(at); err != nil {
		return err
	}
	if err := c.SyncReadiness.validate(at, c.Environments); err != nil {
		return err
	}
	if err := c.Ordering.Validate(c.Environments); err != nil {
		return invalid(at.line("ordering"), "%v", err)
	}
	if err := c.validateGates(); err != nil {
		return err
	}
	for _, a := range c.Components {
		for _, b := range c.Components {
			if a.Key != b.Key && strings.HasPrefix(b.Key, a.Key+".") {
				return invalid(at.line("components", b.Key), "components: %q is nested inside %q", b.Key, a.Key)
			}
		}
	}
	return nil
}

func invalid(line int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		return fmt.Errorf("%s:%d: %s: %w", FileName, line, msg, ErrInvalid)
	}
	return fmt.Errorf("%s: %s: %w", FileName, msg, ErrInvalid)
}

// flowHint explains the one YAML trap of this schema: `{env}` inside a
// flow sequence starts a mapping unless the glob is quoted.
func flowHint(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		if i := strings.Index(line, "["); i >= 0 && strings.Contains(line[i:], "{env}") && !strings.Contains(line[i:], `"`) && !strings.Contains(line[i:], "'") {
			return ` (quote globs with {env} inside [...], e.g. manifests: ["argocd/{env}/*.yaml"])`
		}
	}
	return ""
}

// oneLine folds a multi-line YAML error into one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}
