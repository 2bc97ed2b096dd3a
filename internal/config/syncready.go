package config

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// SyncReadiness tunes manifestdiff's sync-readiness checks. It is
// trusted (see Trusted): it decides what a merge request is judged by.
type SyncReadiness struct {
	// KubeVersions is each env's Kubernetes version ("1.31") for the
	// api-* rules; an env not listed uses kubeVersion.
	KubeVersions map[string]string `yaml:"kubeVersions,omitempty"`
	// Severity overrides a rule's severity: error, warning, info or off.
	Severity map[string]string `yaml:"severity,omitempty"`
}

// SyncRules are the rule ids Severity may name; syncready.Rules is held
// to this list by its tests (config stays free of the checks' imports).
var SyncRules = []string{"project-missing", "project-source", "project-destination", "project-namespace",
	"project-cluster-resource", "project-namespace-resource", "api-removed", "api-deprecated", "shared-resource",
	"schema-unknown-field", "schema-type", "schema-duplicate-field", "schema-unknown-kind"}

// Equal compares two settings as written.
func (s SyncReadiness) Equal(o SyncReadiness) bool {
	return maps.Equal(s.KubeVersions, o.KubeVersions) && maps.Equal(s.Severity, o.Severity)
}

func (s SyncReadiness) clone() SyncReadiness {
	return SyncReadiness{KubeVersions: maps.Clone(s.KubeVersions), Severity: maps.Clone(s.Severity)}
}

// KubeVersionOf is env's Kubernetes version for the api-* rules: its
// kubeVersions entry, else kubeVersion, else "".
func (c *Config) KubeVersionOf(env string) string {
	if v := c.SyncReadiness.KubeVersions[env]; v != "" {
		return v
	}
	return c.KubeVersion
}

// validateSyncReadiness checks rule ids, severities and versions; envs
// (when known: ParseTrusted does not read them) must be configured.
func (s SyncReadiness) validate(at locator, envs []string) error {
	for _, env := range slices.Sorted(maps.Keys(s.KubeVersions)) {
		line := at.line("syncReadiness", "kubeVersions", env)
		if envs != nil && !slices.Contains(envs, env) {
			return invalid(line, "syncReadiness.kubeVersions: %q is not one of the environments (%s)", env, strings.Join(envs, ", "))
		}
		if !majorMinor(s.KubeVersions[env]) {
			return invalid(line, "syncReadiness.kubeVersions.%s: %q is not a Kubernetes version like 1.31", env, s.KubeVersions[env])
		}
	}
	for _, rule := range slices.Sorted(maps.Keys(s.Severity)) {
		line := at.line("syncReadiness", "severity", rule)
		if !slices.Contains(SyncRules, rule) {
			return invalid(line, "syncReadiness.severity: unknown rule %q (rules: %s)", rule, strings.Join(SyncRules, ", "))
		}
		switch s.Severity[rule] {
		case "error", "warning", "info", "off":
		default:
			return invalid(line, "syncReadiness.severity.%s: %q must be error, warning, info or off", rule, s.Severity[rule])
		}
	}
	return nil
}

// majorMinor accepts "1.31", "v1.31" and "1.31.2".
func majorMinor(v string) bool {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}
