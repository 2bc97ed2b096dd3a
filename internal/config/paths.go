package config

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// VersionsPath is the slash-separated path of env's versions file.
func (c *Config) VersionsPath(env string) string {
	return strings.ReplaceAll(c.Versions, "{env}", env)
}

// ManifestGlobs are the slash-separated globs of env's Argo CD manifests.
func (c *Config) ManifestGlobs(env string) []string {
	out := make([]string, len(c.Manifests))
	for i, m := range c.Manifests {
		out[i] = strings.ReplaceAll(m, "{env}", env)
	}
	return out
}

// HasEnv reports whether env is one of the configured environments.
func (c *Config) HasEnv(env string) bool { return slices.Contains(c.Environments, env) }

// CheckEnv returns an error naming the known environments when env is not one.
func (c *Config) CheckEnv(env string) error {
	if c.HasEnv(env) {
		return nil
	}
	return fmt.Errorf("unknown environment %q (configured: %s)", env, strings.Join(c.Environments, ", "))
}

// Previous returns the environment promoted into env, or "" for the first.
func (c *Config) Previous(env string) string {
	i := slices.Index(c.Environments, env)
	if i <= 0 {
		return ""
	}
	return c.Environments[i-1]
}

// ComponentByChart returns the component pinning chart.
func (c *Config) ComponentByChart(chart string) (Component, bool) {
	for _, comp := range c.Components {
		if comp.Chart == chart {
			return comp, true
		}
	}
	return Component{}, false
}

// SelectEnvs validates the environments a user asked for, drops repeats
// (scripts build such lists from variables) keeping first-seen order, and
// defaults to every configured environment.
func (c *Config) SelectEnvs(envs []string) ([]string, error) {
	if len(envs) == 0 {
		return slices.Clone(c.Environments), nil
	}
	var out []string
	for _, e := range envs {
		if err := c.CheckEnv(e); err != nil {
			return nil, err
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// ManifestFiles lists the files env's manifest globs match in fsys:
// sorted, without duplicates or directories. promote, manifestdiff and the
// ordering checks all read exactly this selection.
func (c *Config) ManifestFiles(fsys fs.FS, env string) ([]string, error) {
	set := map[string]bool{}
	for _, g := range c.ManifestGlobs(env) {
		if err := globFiles(fsys, set, strings.TrimPrefix(path.Clean("/"+g), "/")); err != nil {
			return nil, fmt.Errorf("manifest glob %q: %w", g, err)
		}
	}
	return slices.Sorted(mapKeys(set)), nil
}

// globFiles adds the files pattern matches in fsys to set; directories
// are left out.
func globFiles(fsys fs.FS, set map[string]bool, pattern string) error {
	matches, err := fs.Glob(fsys, pattern)
	if err != nil {
		return err
	}
	for _, m := range matches {
		if st, err := fs.Stat(fsys, m); err == nil && !st.IsDir() {
			set[m] = true
		}
	}
	return nil
}
