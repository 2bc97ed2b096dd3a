// Package ordercfg holds the `ordering:` section of .promote.yaml.
//
// It is a leaf package (it imports only the YAML library) so that
// internal/config can embed Config without an import cycle: the ordering
// package itself depends on internal/config through argo.Discover.
package ordercfg

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Config tunes the ordering checks.
type Config struct {
	// ManualSync lists environments whose apps must never auto-sync
	// (syncPolicy.automated on an Application or ApplicationSet template).
	ManualSync []string `yaml:"manualSync,omitempty" json:"manualSync,omitempty"`
	// ParityIgnore lists app names, with the env suffix removed, that may
	// legitimately exist in only some environments (a qa-only smoke app).
	ParityIgnore []string `yaml:"parityIgnore,omitempty" json:"parityIgnore,omitempty"`
}

var knownKeys = []string{"manualSync", "parityIgnore"}

// UnmarshalYAML decodes strictly: an unknown key is an error even when the
// surrounding decoder does not use KnownFields, because node.Decode starts
// a fresh decoder that would otherwise drop a typo like manualsync silently.
func (c *Config) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		*c = Config{}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: ordering: must be a mapping like {manualSync: [prod]}", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(knownKeys, k.Value) {
			return fmt.Errorf("line %d: ordering: unknown key %q (known: %s)", k.Line, k.Value, strings.Join(knownKeys, ", "))
		}
	}
	type plain Config // no UnmarshalYAML method: avoids recursion
	var p plain
	if err := n.Decode(&p); err != nil {
		return fmt.Errorf("ordering: %s", oneLine(err))
	}
	*c = Config(p)
	return c.check()
}

// check rejects what no environment list could make valid.
func (c *Config) check() error {
	for _, list := range []struct {
		key  string
		vals []string
	}{{"manualSync", c.ManualSync}, {"parityIgnore", c.ParityIgnore}} {
		seen := map[string]bool{}
		for _, v := range list.vals {
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("ordering.%s: empty entry", list.key)
			}
			if seen[v] {
				return fmt.Errorf("ordering.%s: %q is listed twice", list.key, v)
			}
			seen[v] = true
		}
	}
	return nil
}

// Validate checks the entries that name environments against the
// configured ones, so a typo like "prd" cannot switch a guard off.
func (c Config) Validate(envs []string) error {
	for _, e := range c.ManualSync {
		if !slices.Contains(envs, e) {
			return fmt.Errorf("ordering.manualSync: unknown environment %q (configured: %s)", e, strings.Join(envs, ", "))
		}
	}
	return nil
}

// IsManualSync reports whether env must never auto-sync.
func (c Config) IsManualSync(env string) bool { return slices.Contains(c.ManualSync, env) }

func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}
