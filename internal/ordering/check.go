package ordering

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
)

// checkFor applies every ordering rule to inv, those that look at one env
// at a time only to envs (every env when none are given): the parity rule
// still compares them all. promote apply wants one env's findings, and
// the checks are the last thing it waits for before the commit. Findings
// come sorted by env (in inventory order), file, line, rule, app and
// message.
func checkFor(inv *Inventory, ocfg Config, envs []string) []Finding {
	var out []Finding
	for i := range inv.Envs {
		e := &inv.Envs[i]
		if len(envs) > 0 && !slices.Contains(envs, e.Env) {
			continue
		}
		out = append(out, waveFindings(e)...)
		out = append(out, dependencyFindings(e)...)
		out = append(out, rollingSyncFindings(e)...)
		if ocfg.IsManualSync(e.Env) {
			out = append(out, manualSyncFindings(e)...)
		}
	}
	out = append(out, parityFindings(inv, ocfg)...)
	sortFindings(inv, out)
	return out
}

// Manifests supplies an env's manifests as argo.ReadManifests returns
// them; ok is false when the caller has none and the check must read the
// env itself. It may block until they are ready.
type Manifests func(env string) (ms []argo.Manifest, ok bool)

// CheckRepoWith is what `promote check` and `promote apply` need in one
// call: it validates ocfg against the configured environments, builds
// every environment (env-parity compares them all) and returns the
// findings of envs, or of every environment when none are given. It takes
// the manifests of the envs checked in full from pre when it has them:
// promote apply parses its target env's manifests for the plan, with the
// same parser, and the checks then do not parse them a second time.
func CheckRepoWith(fsys fs.FS, cfg *config.Config, ocfg Config, pre Manifests, envs ...string) ([]Finding, error) {
	if err := ocfg.Validate(cfg.Environments); err != nil {
		return nil, err
	}
	for _, e := range envs {
		if err := cfg.CheckEnv(e); err != nil {
			return nil, err
		}
	}
	inv, err := buildForCheck(fsys, cfg, envs, pre)
	if err != nil {
		return nil, err
	}
	all := checkFor(inv, ocfg, envs)
	if len(envs) == 0 {
		return all, nil
	}
	var out []Finding
	for _, f := range all {
		if slices.Contains(envs, f.Env) {
			out = append(out, f)
		}
	}
	return out, nil
}

// waveFindings reports sync-waves Argo CD would silently read as 0. A
// generated app is reported only when its wave differs from the template's
// as written, so one bad template yields one finding, not one per app.
func waveFindings(e *EnvInventory) []Finding {
	var out []Finding
	for _, o := range e.Objects() {
		if o.Root {
			continue
		}
		if o.WaveText != "" && !templated(o.WaveText) {
			out = append(out, finding(RuleWaveInvalid, e.Env, o.File, o.Line, o.Name,
				"sync-wave %q is not an integer; Argo CD treats it as 0", o.WaveText))
		}
		for _, g := range o.Apps {
			if g.WaveText != "" && !sameText(g.waveRaw, o.templateWave) {
				out = append(out, finding(RuleWaveInvalid, e.Env, o.File, g.Line, g.Name,
					"sync-wave %q (from ApplicationSet %s) is not an integer; Argo CD treats it as 0", g.WaveText, o.Name))
			}
		}
	}
	return out
}

// manualSyncFindings reports auto-sync in an environment that must be
// synced by hand.
func manualSyncFindings(e *EnvInventory) []Finding {
	var out []Finding
	for _, o := range e.Objects() {
		if o.Root || !o.Automated {
			continue
		}
		msg := "has syncPolicy.automated, but env %s is listed in ordering.manualSync"
		if o.Kind == KindApplicationSet {
			msg = "template (or a generated app) has syncPolicy.automated, but env %s is listed in ordering.manualSync"
		}
		out = append(out, finding(RuleManualSync, e.Env, o.File, o.Line, o.Name, msg, e.Env))
	}
	return out
}

// rollingSyncFindings reports steps that select nothing and generated apps
// no step selects: Argo CD leaves such apps out of the rollout entirely.
func rollingSyncFindings(e *EnvInventory) []Finding {
	var out []Finding
	for _, o := range e.Objects() {
		if o.RollingSync == nil {
			continue
		}
		selected := map[string]bool{}
		for i, st := range o.RollingSync.Steps {
			for _, a := range st.Apps {
				selected[a] = true
			}
			if len(st.Apps) > 0 {
				continue
			}
			why := fmt.Sprintf("selects none of the %d generated apps", len(o.Apps))
			if st.Error != "" {
				why = "selects nothing: " + st.Error
			}
			out = append(out, finding(RuleRollingEmptyStep, e.Env, o.File, o.Line, o.Name,
				"RollingSync step %d (%s) %s", i+1, exprList(st.MatchExpressions), why))
		}
		for _, g := range o.Apps {
			if !selected[g.Name] {
				out = append(out, finding(RuleRollingUnmatched, e.Env, o.File, g.Line, g.Name,
					"no RollingSync step of ApplicationSet %s selects it (labels %s); Argo CD will not sync it", o.Name, labelList(g.Labels)))
			}
		}
	}
	return out
}

func finding(rule, env, file string, line int, app, format string, args ...any) Finding {
	return Finding{Rule: rule, Env: env, File: file, Line: line, App: app, Message: fmt.Sprintf(format, args...)}
}

func sameText(a, b *string) bool { return a != nil && b != nil && *a == *b }

func exprList(exprs []MatchExpression) string {
	if len(exprs) == 0 {
		return "no matchExpressions"
	}
	parts := make([]string, len(exprs))
	for i, e := range exprs {
		parts[i] = e.String()
	}
	return strings.Join(parts, "; ")
}

func labelList(labels map[string]string) string {
	if len(labels) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + labels[k]
	}
	return strings.Join(keys, ", ")
}

func sortFindings(inv *Inventory, fs []Finding) {
	order := func(env string) int {
		return slices.IndexFunc(inv.Envs, func(e EnvInventory) bool { return e.Env == env })
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if oa, ob := order(a.Env), order(b.Env); oa != ob {
			return oa < ob
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.App != b.App {
			return a.App < b.App
		}
		return a.Message < b.Message
	})
}
