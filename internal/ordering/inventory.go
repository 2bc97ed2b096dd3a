package ordering

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
)

// Build inventories envs (every configured environment when none are
// given), in the order given. It fails when a manifest does not parse or an
// ApplicationSet cannot be expanded offline; broken ordering is not an
// error but data for Check.
func Build(fsys fs.FS, cfg *config.Config, envs ...string) (*Inventory, error) {
	if len(envs) == 0 {
		envs = cfg.Environments
	}
	// Environments are independent, and promote apply waits on this:
	// build them on all cores. fsys must be safe for concurrent reads (os
	// dirs are; git tree views lock).
	results := make([]*EnvInventory, len(envs))
	errs := make([]error, len(envs))
	var wg sync.WaitGroup
	for i, env := range envs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = buildEnv(fsys, cfg, env)
		}()
	}
	wg.Wait()
	inv := &Inventory{}
	for i := range envs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		inv.Envs = append(inv.Envs, *results[i])
	}
	return inv, nil
}

// buildForCheck inventories the envs whose findings are wanted in full,
// and every other env only as far as the parity rule looks at it: its
// Applications and ApplicationSets with their waves. promote apply checks
// one env on every run, and expanding the generators of all the others
// was most of its ordering cost. An env whose ApplicationSets template
// their wave still gets the full build. All envs are built at once:
// promote apply waits on this, and the light builds fill the core the
// plan leaves idle.
func buildForCheck(fsys fs.FS, cfg *config.Config, envs []string, pre Manifests) (*Inventory, error) {
	if len(envs) == 0 {
		return Build(fsys, cfg)
	}
	type result struct {
		inv   *EnvInventory
		light bool
		err   error
	}
	results := make([]result, len(cfg.Environments))
	var wg sync.WaitGroup
	for i, env := range cfg.Environments {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[i]
			if slices.Contains(envs, env) {
				if ms, ok := pre.get(env); ok {
					r.inv, r.err = buildEnvFrom(fsys, cfg, env, ms)
				} else {
					r.inv, r.err = buildEnv(fsys, cfg, env)
				}
			} else {
				r.inv, r.light, r.err = buildEnvLight(fsys, cfg, env)
			}
		}()
	}
	wg.Wait()
	roots := map[string]bool{} // base names of the fully built envs' roots
	inv := &Inventory{}
	for i, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		inv.Envs = append(inv.Envs, *r.inv)
		if !r.light {
			for _, o := range r.inv.Objects() {
				if o.Root {
					roots[BaseName(o.Name, cfg.Environments[i])] = true
				}
			}
		}
	}
	// A light env's root is the one named like a full env's root.
	for i, r := range results {
		if r.light {
			for _, o := range inv.Envs[i].Objects() {
				o.Root = o.Kind == KindApplication && roots[BaseName(o.Name, cfg.Environments[i])]
			}
		}
	}
	return inv, nil
}

// buildEnvLight inventories env without expanding its ApplicationSets
// (light is true), unless one templates its wave.
func buildEnvLight(fsys fs.FS, cfg *config.Config, env string) (e *EnvInventory, light bool, err error) {
	ms, err := argo.ReadManifests(fsys, cfg, env)
	if err != nil {
		return nil, false, err
	}
	raws, err := objectsOf(ms)
	if err != nil {
		return nil, false, fmt.Errorf("env %s: %w", env, err)
	}
	objs := make([]Object, 0, len(raws))
	for _, r := range raws {
		o := newObject(r)
		if o.templateWave != nil && templated(*o.templateWave) {
			e, err := buildEnvFrom(fsys, cfg, env, ms)
			return e, false, err
		}
		objs = append(objs, o)
	}
	return &EnvInventory{Env: env, Waves: groupByWave(objs)}, true, nil
}

// get is pre(env), or nothing when there is no pre.
func (pre Manifests) get(env string) ([]argo.Manifest, bool) {
	if pre == nil {
		return nil, false
	}
	return pre(env)
}

func buildEnv(fsys fs.FS, cfg *config.Config, env string) (*EnvInventory, error) {
	ms, err := argo.ReadManifests(fsys, cfg, env)
	if err != nil {
		return nil, err
	}
	return buildEnvFrom(fsys, cfg, env, ms)
}

// buildEnvFrom inventories env from its parsed manifests, which both
// discovery and the objects' own annotations read.
func buildEnvFrom(fsys fs.FS, cfg *config.Config, env string, ms []argo.Manifest) (*EnvInventory, error) {
	apps, err := argo.DiscoverManifests(fsys, cfg, env, ms)
	if err != nil {
		return nil, err
	}
	raws, err := objectsOf(ms)
	if err != nil {
		return nil, fmt.Errorf("env %s: %w", env, err)
	}
	byName := map[string]argo.App{}
	generated := map[string][]argo.App{} // by file + appset name
	for _, a := range apps {
		if a.AppSet == "" {
			byName[a.Name] = a
		} else {
			k := a.File + "\x00" + a.AppSet
			generated[k] = append(generated[k], a)
		}
	}
	objs := make([]Object, 0, len(raws))
	for _, r := range raws {
		o := newObject(r)
		if r.Kind == KindApplication {
			if a, ok := byName[r.Name]; ok {
				o.Line = a.Line
				o.Automated = a.Automated
			}
		} else {
			o.Apps = generatedApps(generated[r.File+"\x00"+r.Name])
			o.Automated = o.Automated || anyAutomated(o.Apps)
			o.RollingSync = rollingSync(r.Strategy, o.Apps)
			o.resolveTemplatedWave()
		}
		objs = append(objs, o)
	}
	markRoots(fsys, cfg.RepoURL, apps, objs)
	return &EnvInventory{Env: env, Waves: groupByWave(objs)}, nil
}

// newObject derives an object's wave and dependencies from its annotations.
// An ApplicationSet without a wave of its own falls back to its template's.
func newObject(r rawObject) Object {
	o := Object{Kind: r.Kind, Name: r.Name, File: r.File, Line: r.Line, Automated: r.Automated}
	waveAnn, hasWave := r.Annotations[SyncWaveAnnotation]
	o.DependsOn = splitNames(r.Annotations[DependsOnAnnotation])
	if r.Kind == KindApplicationSet {
		o.templateWave = lookup(r.TemplateAnn, SyncWaveAnnotation)
		o.templateDeps = lookup(r.TemplateAnn, DependsOnAnnotation)
		if !hasWave && o.templateWave != nil {
			waveAnn, hasWave = *o.templateWave, true
		}
		// A templated depends-on is resolved per generated app instead
		// (see newGraph); a plain one belongs to the ApplicationSet.
		if o.templateDeps != nil && !templated(*o.templateDeps) {
			o.DependsOn = union(o.DependsOn, splitNames(*o.templateDeps))
		}
	}
	o.Wave, o.WaveText, o.Defaulted = parseWave(waveAnn, hasWave)
	return o
}

// union appends the names of b missing from a.
func union(a, b []string) []string {
	for _, n := range b {
		if !slices.Contains(a, n) {
			a = append(a, n)
		}
	}
	return a
}

// resolveTemplatedWave orders an ApplicationSet whose only wave is a
// templated one ("{{wave}}") by the earliest wave of its generated apps:
// that is when its first app may sync.
func (o *Object) resolveTemplatedWave() {
	if o.WaveText == "" || !templated(o.WaveText) || len(o.Apps) == 0 {
		return
	}
	o.Wave = o.Apps[0].Wave
	for _, a := range o.Apps[1:] {
		o.Wave = min(o.Wave, a.Wave)
	}
}

func generatedApps(apps []argo.App) []GeneratedApp {
	out := make([]GeneratedApp, 0, len(apps))
	for _, a := range apps {
		g := GeneratedApp{Name: a.Name, Line: a.Line, Automated: a.Automated, Labels: a.Labels}
		g.waveRaw = lookup(a.Annotations, SyncWaveAnnotation)
		g.depsRaw = lookup(a.Annotations, DependsOnAnnotation)
		w := ""
		if g.waveRaw != nil {
			w = *g.waveRaw
		}
		g.Wave, g.WaveText, g.Defaulted = parseWave(w, g.waveRaw != nil)
		if g.depsRaw != nil {
			g.DependsOn = splitNames(*g.depsRaw)
		}
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func anyAutomated(apps []GeneratedApp) bool {
	for _, a := range apps {
		if a.Automated {
			return true
		}
	}
	return false
}

// parseWave mirrors Argo CD, which reads the wave with strconv.Atoi and
// falls back to 0 when the annotation is absent or not an integer.
func parseWave(text string, present bool) (wave int, invalid string, defaulted bool) {
	if !present {
		return 0, "", true
	}
	w, err := strconv.Atoi(text)
	if err != nil {
		if text == "" {
			text = `""` // keep an empty annotation visible as invalid
		}
		return 0, text, false
	}
	return w, "", false
}

// splitNames splits a comma-separated depends-on list, dropping blanks.
func splitNames(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func lookup(m map[string]string, key string) *string {
	if v, ok := m[key]; ok {
		return &v
	}
	return nil
}

// templated reports whether an ApplicationSet template value contains
// generator placeholders, which only the generated apps resolve.
func templated(s string) bool { return strings.Contains(s, "{{") }

// groupByWave buckets objects by wave, ascending, each bucket by name.
func groupByWave(objs []Object) []WaveGroup {
	sort.SliceStable(objs, func(i, j int) bool {
		a, b := objs[i], objs[j]
		if a.Wave != b.Wave {
			return a.Wave < b.Wave
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.File < b.File
	})
	var out []WaveGroup
	for _, o := range objs {
		if n := len(out); n == 0 || out[n-1].Wave != o.Wave {
			out = append(out, WaveGroup{Wave: o.Wave})
		}
		out[len(out)-1].Objects = append(out[len(out)-1].Objects, o)
	}
	return out
}

// Objects returns the environment's objects in wave order.
func (e *EnvInventory) Objects() []*Object {
	var out []*Object
	for i := range e.Waves {
		for j := range e.Waves[i].Objects {
			out = append(out, &e.Waves[i].Objects[j])
		}
	}
	return out
}
