package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// LiveEnv is one entry of `live:`: an environment whose cluster
// `manifestdiff --live` may compare with, and optionally the kubeconfig
// context that reaches it. Written as a bare name (`live: [qa]`) or as a
// mapping (`{env: qa, context: qa-admin}`).
type LiveEnv struct {
	Env string `yaml:"env"`
	// Context names the kubeconfig context for this env; "" means the one
	// given with --context, else the kubeconfig's current context.
	Context string `yaml:"context,omitempty"`
}

// UnmarshalYAML accepts a bare env name or a mapping with env and context;
// unknown keys are an error, as everywhere in the file.
func (l *LiveEnv) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		l.Env = n.Value
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a live entry is an env name or {env: NAME, context: CONTEXT}", n.Line)
	}
	if err := knownKeys(n, "env", "context"); err != nil {
		return fmt.Errorf("line %d: live entry: %v", n.Line, err)
	}
	type plain LiveEnv
	return n.Decode((*plain)(l))
}

// LiveFor returns env's live entry, if live diff is allowed for it.
func (c *Config) LiveFor(env string) (LiveEnv, bool) {
	for _, l := range c.Live {
		if l.Env == env {
			return l, true
		}
	}
	return LiveEnv{}, false
}

func (c *Config) validateLive(at locator) error {
	seen := map[string]int{}
	for i, l := range c.Live {
		line := at.line("live", i)
		if l.Env == "" {
			return invalid(line, "live: an entry has no env")
		}
		if err := c.CheckEnv(l.Env); err != nil {
			return invalid(line, "live: %q is not one of the environments", l.Env)
		}
		if j, ok := seen[l.Env]; ok {
			return invalid(line, "live: %q is listed twice (first at line %d)", l.Env, at.line("live", j))
		}
		seen[l.Env] = i
	}
	return nil
}
