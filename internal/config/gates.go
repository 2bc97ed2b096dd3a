package config

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Gate names, as written in .promote.yaml and in Gate-Overridden trailers.
const (
	GateSourceHealthy = "sourceHealthy"
	GateMinSoak       = "minSoak"
	GateSyncWindow    = "syncWindow"
	GateSyncReady     = "syncReady"
)

// Sync window and sync-readiness gate modes.
const (
	SyncWindowRequire = "require"
	SyncWindowWarn    = "warn"
)

// DefaultLookback is how many commits of history a gate reads commit
// statuses of, at most, when the config does not say.
const DefaultLookback = 100

// Gate is the gates block of one target environment:
//
//	gates:
//	  prod: {sourceHealthy: true, minSoak: 2h, syncWindow: require, syncReady: require}
type Gate struct {
	// SourceHealthy requires every Application of the source env to be
	// reported synced and healthy (GitLab status argocd/<app> = success)
	// on a commit with the values being promoted.
	SourceHealthy bool `json:"sourceHealthy,omitempty"`
	// MinSoak requires those apps to have been healthy on those values
	// for at least this long. It needs SourceHealthy.
	MinSoak time.Duration `json:"minSoak,omitempty"`
	// SyncWindow is "require" (refuse outside the target env's allowed
	// sync windows), "warn" (say so and go on) or "" (not checked).
	SyncWindow string `json:"syncWindow,omitempty"`
	// SyncReady is "require" (refuse a promotion that gives the target
	// env a new sync-readiness error, rendered by manifestdiff), "warn"
	// (say so and go on) or "" (not checked: nothing is rendered).
	SyncReady string `json:"syncReady,omitempty"`
	// Lookback bounds the commits whose statuses are read (default 100).
	Lookback int `json:"lookback,omitempty"`
	Line     int `json:"-"`
}

// Any reports whether the gate checks anything.
func (g Gate) Any() bool {
	return g.SourceHealthy || g.MinSoak > 0 || g.SyncWindow != "" || g.SyncReady != ""
}

// ReadsHealth: the gate reads Argo CD's health from GitLab's commit
// statuses (sourceHealthy, minSoak), so GitLab must be configured.
func (g Gate) ReadsHealth() bool { return g.SourceHealthy || g.MinSoak > 0 }

// GateFor returns the gates of target env (the zero Gate when none).
func (c *Config) GateFor(env string) Gate { return c.Gates[env] }

// parseGates reads the gates block: a mapping of env to its gates, each
// key checked, so a typo (`minsoak`) is an error rather than no gate.
func parseGates(n *yaml.Node) (map[string]Gate, error) {
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, invalid(n.Line, "gates: must be a mapping of target environment to its gates")
	}
	out := map[string]Gate{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := knownKeys(v, GateSourceHealthy, GateMinSoak, GateSyncWindow, GateSyncReady, "lookback"); err != nil {
			return nil, invalid(v.Line, "gates.%s: %v", k.Value, strings.Replace(err.Error(), "{chart: NAME}", "{sourceHealthy: true, minSoak: 2h, syncWindow: require, syncReady: require}", 1))
		}
		var raw struct {
			SourceHealthy bool   `yaml:"sourceHealthy"`
			MinSoak       string `yaml:"minSoak"`
			SyncWindow    string `yaml:"syncWindow"`
			SyncReady     string `yaml:"syncReady"`
			Lookback      int    `yaml:"lookback"`
		}
		if err := v.Decode(&raw); err != nil {
			return nil, invalid(v.Line, "gates.%s: %s", k.Value, oneLine(err))
		}
		g := Gate{SourceHealthy: raw.SourceHealthy, SyncWindow: raw.SyncWindow, SyncReady: raw.SyncReady, Lookback: raw.Lookback, Line: k.Line}
		if raw.MinSoak != "" {
			d, err := time.ParseDuration(raw.MinSoak)
			if err != nil || d <= 0 {
				return nil, invalid(v.Line, "gates.%s.minSoak: %q is not a positive duration like 30m or 2h", k.Value, raw.MinSoak)
			}
			g.MinSoak = d
		}
		if g.MinSoak > 0 && !g.SourceHealthy {
			return nil, invalid(v.Line, "gates.%s.minSoak: needs sourceHealthy: true (it ages the healthy statuses that gate finds)", k.Value)
		}
		if g.SyncWindow != "" && g.SyncWindow != SyncWindowRequire && g.SyncWindow != SyncWindowWarn {
			return nil, invalid(v.Line, "gates.%s.syncWindow: %q must be require or warn", k.Value, g.SyncWindow)
		}
		if g.SyncReady != "" && g.SyncReady != SyncWindowRequire && g.SyncReady != SyncWindowWarn {
			return nil, invalid(v.Line, "gates.%s.syncReady: %q must be require or warn", k.Value, g.SyncReady)
		}
		if g.Lookback < 0 || g.Lookback > 1000 {
			return nil, invalid(v.Line, "gates.%s.lookback: %d must be between 1 and 1000 commits", k.Value, g.Lookback)
		}
		if g.Lookback == 0 {
			g.Lookback = DefaultLookback
		}
		if _, dup := out[k.Value]; dup {
			return nil, invalid(k.Line, "gates: %q is listed twice", k.Value)
		}
		out[k.Value] = g
	}
	return out, nil
}

// validateGates runs once environments are known.
func (c *Config) validateGates() error {
	for _, env := range slices.Sorted(mapKeys(c.Gates)) {
		g := c.Gates[env]
		if !c.HasEnv(env) {
			return invalid(g.Line, "gates: %q is not one of the environments (%s)", env, strings.Join(c.Environments, ", "))
		}
		if g.SourceHealthy && c.Previous(env) == "" {
			return invalid(g.Line, "gates.%s.sourceHealthy: %s is the first environment; nothing is promoted into it", env, env)
		}
	}
	for _, g := range c.AppProjects {
		if _, err := fs.Glob(emptyFS{}, strings.ReplaceAll(g, "{env}", "x")); err != nil {
			return invalid(0, "appProjects: bad glob %q", g)
		}
	}
	return nil
}

// AppProjectFiles lists the files that may hold env's AppProjects: the
// appProjects globs (with {env}) and env's manifests, sorted, once each.
func (c *Config) AppProjectFiles(fsys fs.FS, env string) ([]string, error) {
	files, err := c.ManifestFiles(fsys, env)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, f := range files {
		set[f] = true
	}
	for _, g := range c.AppProjects {
		if err := globFiles(fsys, set, strings.TrimPrefix(strings.ReplaceAll(g, "{env}", env), "/")); err != nil {
			return nil, fmt.Errorf("appProjects glob %q: %w", g, err)
		}
	}
	return slices.Sorted(mapKeys(set)), nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

type emptyFS struct{}

func (emptyFS) Open(string) (fs.File, error) { return nil, fs.ErrNotExist }

// MarshalJSON writes minSoak as written in .promote.yaml ("2h0m0s"), not
// in nanoseconds.
func (g Gate) MarshalJSON() ([]byte, error) {
	type plain struct {
		SourceHealthy bool   `json:"sourceHealthy,omitempty"`
		MinSoak       string `json:"minSoak,omitempty"`
		SyncWindow    string `json:"syncWindow,omitempty"`
		SyncReady     string `json:"syncReady,omitempty"`
		Lookback      int    `json:"lookback,omitempty"`
	}
	p := plain{SourceHealthy: g.SourceHealthy, SyncWindow: g.SyncWindow, SyncReady: g.SyncReady, Lookback: g.Lookback}
	if g.MinSoak > 0 {
		p.MinSoak = g.MinSoak.String()
	}
	return json.Marshal(p)
}
