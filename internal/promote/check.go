package promote

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/ordering"
	"github.com/gitops-promote/gitops-promote/internal/patch"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

// Rule ids of check findings; stable, for scripts.
const (
	RuleVersionsUnreadable = "versions-unreadable"
	RuleManifestUnreadable = "manifest-unreadable"
	RuleComponentMissing   = "component-missing"
	RuleUnpinned           = "unpinned-version"
	RuleRevisionMismatch   = "revision-mismatch"
	RuleTemplatedRevision  = "templated-revision"
	RuleMissingRevision    = "missing-revision"
	RuleNoSource           = "component-without-source"
	RuleNoComponent        = "source-without-component"
	RuleDuplicateKey       = "duplicate-key"
	RuleRejectedVersion    = "rejected-version"
)

// Finding is one problem check reports.
type Finding struct {
	Env       string `json:"env"`
	Rule      string `json:"rule"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Component string `json:"component,omitempty"`
	App       string `json:"app,omitempty"`
	Message   string `json:"message"`
}

// Check inspects each env and returns every finding, sorted by env order,
// file and line. It never stops at the first problem.
func Check(fsys fs.FS, cfg *config.Config, envs []string) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, env := range envs {
		found := checkEnv(fsys, cfg, env)
		ord, err := orderingFindings(fsys, cfg, env, nil)
		if err != nil {
			ord = []Finding{unreadable(env, "", RuleManifestUnreadable, err)}
		}
		for _, f := range ord {
			if !slices.Contains(found, f) { // a duplicate key is found by both
				found = append(found, f)
			}
		}
		out = append(out, found...)
		out = append(out, rejectedFindings(fsys, cfg, env)...)
		out = append(out, windowFindings(fsys, cfg, env, seen)...)
	}
	return out
}

// orderingFindings are the sync-wave, dependency, RollingSync, sync-policy
// and parity findings of env (see internal/ordering). A manifest the rules
// cannot read is an error, never a finding --ignore-ordering overrides.
func orderingFindings(fsys fs.FS, cfg *config.Config, env string, pre ordering.Manifests) ([]Finding, error) {
	fs, err := ordering.CheckRepoWith(fsys, cfg, cfg.Ordering, pre, env)
	if err != nil {
		if de := duplicateKey(fsys, cfg); de != nil {
			return nil, de
		}
		return nil, err
	}
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		out = append(out, Finding{Env: f.Env, Rule: f.Rule, File: f.File, Line: f.Line, App: f.App, Message: f.Message})
	}
	return out, nil
}

// unreadable is the finding for a file that does not parse (rule); a
// duplicate key gets a rule of its own, with the line.
func unreadable(env, file, rule string, err error) Finding {
	var de *patch.DuplicateKeyError
	if errors.As(err, &de) {
		return Finding{Env: env, Rule: RuleDuplicateKey, File: de.File, Line: de.Line,
			Message: fmt.Sprintf("key %q is already defined at line %d; readers disagree about which one wins", de.Key, de.First)}
	}
	return Finding{Env: env, Rule: rule, File: file, Message: oneLine(err.Error())}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func checkEnv(fsys fs.FS, cfg *config.Config, env string) []Finding {
	var out []Finding
	add := func(rule, file string, line int, comp, format string, args ...any) {
		out = append(out, Finding{Env: env, Rule: rule, File: file, Line: line, Component: comp, Message: fmt.Sprintf(format, args...)})
	}
	vf, err := readVersions(fsys, cfg, env)
	if err != nil {
		out = append(out, unreadable(env, cfg.VersionsPath(env), RuleVersionsUnreadable, err))
		vf = &versions.File{}
	}
	for _, c := range vf.Components {
		if !c.Found {
			add(RuleComponentMissing, vf.Path, 0, c.Key, "component %s is not in %s", c.Key, vf.Path)
		}
		for _, f := range c.Fields {
			if err := versions.CheckPinned(f.Key, f.Value); err != nil {
				add(RuleUnpinned, vf.Path, f.Line, c.Key, "%s.%s: %v", c.Key, f.Key, err)
			}
		}
	}
	files, err := readManifestsLenient(fsys, cfg, env, func(path string, err error) {
		out = append(out, unreadable(env, path, RuleManifestUnreadable, err))
	})
	if err != nil {
		add(RuleManifestUnreadable, "", 0, "", "%v", err)
	}
	used := map[string]bool{}
	for _, f := range files {
		for _, s := range f.Sources {
			comp, ok := cfg.ComponentByChart(s.Chart)
			if !ok {
				add(RuleNoComponent, f.Path, s.Revision.Line, "", "%s: Helm source of chart %s matches no component in %s", s.Name, s.Chart, config.FileName)
				continue
			}
			used[comp.Key] = true
			want := ""
			if vc, ok := vf.Component(comp.Key); ok {
				if fld, ok := vc.Field(versions.ChartVersionKey); ok {
					want = fld.Value
				}
			}
			switch {
			case !s.HasRevision:
				add(RuleMissingRevision, f.Path, 0, comp.Key, "%s: Helm source of chart %s has no targetRevision (Argo CD would float to the newest)", s.Name, s.Chart)
			case s.Revision.Templated:
				add(RuleTemplatedRevision, f.Path, s.Revision.Line, comp.Key, "%s: targetRevision %q is templated; promote cannot pin it", s.Name, s.Revision.Value)
			case want != "" && s.Revision.Value != want:
				add(RuleRevisionMismatch, f.Path, s.Revision.Line, comp.Key, "%s: targetRevision %s differs from %s.%s %s in %s", s.Name, s.Revision.Value, comp.Key, versions.ChartVersionKey, want, vf.Path)
			case want == "":
				if err := versions.CheckPinned(versions.ChartVersionKey, s.Revision.Value); err != nil {
					add(RuleUnpinned, f.Path, s.Revision.Line, comp.Key, "%s: targetRevision: %v", s.Name, err)
				}
			}
		}
	}
	for _, c := range cfg.Components {
		if !used[c.Key] {
			add(RuleNoSource, "", 0, c.Key, "no Helm source of chart %s in the %s manifests (%v)", c.Chart, env, cfg.ManifestGlobs(env))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// readManifestsLenient is readManifests that reports unreadable files and
// goes on, so check lists every problem at once.
func readManifestsLenient(fsys fs.FS, cfg *config.Config, env string, bad func(string, error)) ([]manifestFile, error) {
	paths, err := cfg.ManifestFiles(fsys, env)
	if err != nil {
		return nil, err
	}
	var out []manifestFile
	for _, p := range paths {
		mf, err := readManifest(fsys, p)
		if err != nil {
			bad(p, err)
			continue
		}
		out = append(out, mf)
	}
	return out, nil
}
