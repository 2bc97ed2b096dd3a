package gates

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

// Values are what a promotion moves, as they apply to one app: the chart
// revision of each of its Helm sources of a configured component
// ("chart dlt-backend" -> "3.1.0") and that component's versions fields
// ("dlt-node.backend.imageTag" -> "v2.2.0").
type Values map[string]string

// Snapshot is one env at one commit: its apps and each app's values.
type Snapshot struct {
	Env    string
	Apps   []argo.App
	Values map[string]Values // by app name
	// Comps names the components each app's values come from.
	Comps map[string][]string
}

// Snap discovers env's apps in fsys (ApplicationSets expanded) and their
// values. An app-of-apps (a directory source of this repository that
// holds the env's manifests) carries the chart revisions of every app it
// deploys: syncing it is what moves them.
func Snap(fsys fs.FS, cfg *config.Config, env string) (*Snapshot, error) {
	apps, err := argo.Discover(fsys, cfg, env)
	if err != nil {
		return nil, err
	}
	vpath := cfg.VersionsPath(env)
	data, err := fs.ReadFile(fsys, vpath)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", vpath, err)
	}
	vf, err := versions.Read(vpath, data, cfg.Components)
	if err != nil {
		return nil, err
	}
	manifests, err := cfg.ManifestFiles(fsys, env)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Env: env, Apps: apps, Values: map[string]Values{}, Comps: map[string][]string{}}
	for _, a := range apps {
		v, comps := Values{}, []string(nil)
		for _, src := range a.Sources {
			comp, ok := cfg.ComponentByChart(src.Chart)
			if src.Chart == "" || !ok {
				continue
			}
			v["chart "+src.Chart] = src.TargetRevision
			if c, ok := vf.Component(comp.Key); ok {
				for _, f := range c.Fields {
					v[comp.Key+"."+f.Key] = f.Value
				}
			}
			if !slices.Contains(comps, comp.Key) {
				comps = append(comps, comp.Key)
			}
		}
		s.Values[a.Name], s.Comps[a.Name] = v, comps
	}
	for _, a := range apps {
		if !deploysManifests(a, cfg, manifests) {
			continue
		}
		revs := map[string][]string{}
		for _, other := range apps {
			if other.Name == a.Name {
				continue
			}
			for _, src := range other.Sources {
				if comp, ok := cfg.ComponentByChart(src.Chart); ok && src.Chart != "" {
					revs["chart "+src.Chart] = appendUnique(revs["chart "+src.Chart], src.TargetRevision)
					s.Comps[a.Name] = appendUnique(s.Comps[a.Name], comp.Key)
				}
			}
		}
		for k, rs := range revs {
			sort.Strings(rs)
			s.Values[a.Name][k] = strings.Join(rs, ",")
		}
	}
	return s, nil
}

// deploysManifests: a directory source of this repository whose path
// holds one of env's manifest files.
func deploysManifests(a argo.App, cfg *config.Config, manifests []string) bool {
	for _, src := range a.Sources {
		if src.Chart != "" || src.Path == "" || !argo.SameRepo(src.RepoURL, cfg.RepoURL) {
			continue
		}
		dir := path.Clean(strings.TrimPrefix(src.Path, "./"))
		for _, m := range manifests {
			if path.Dir(m) == dir || (src.Directory != nil && src.Directory.Recurse && strings.HasPrefix(m, dir+"/")) {
				return true
			}
		}
	}
	return false
}

func appendUnique(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// scope keeps the values of the components promoted (all when only is
// empty).
func (v Values) scope(only []string) Values {
	if len(only) == 0 {
		return v
	}
	out := Values{}
	for k, val := range v {
		for _, c := range only {
			if strings.HasPrefix(k, c+".") {
				out[k] = val
			}
		}
	}
	return out
}

// inScope: with --only, an app matters when one of its components does.
func (s *Snapshot) inScope(app string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, c := range s.Comps[app] {
		if slices.Contains(only, c) {
			return true
		}
	}
	return false
}

// scopeCharts maps chart keys to their component for --only filtering.
func scopeCharts(cfg *config.Config, v Values, only []string) Values {
	if len(only) == 0 {
		return v
	}
	out := v.scope(only)
	for _, c := range cfg.Components {
		if slices.Contains(only, c.Key) {
			if r, ok := v["chart "+c.Chart]; ok {
				out["chart "+c.Chart] = r
			}
		}
	}
	return out
}

// diff lists how got differs from want, naming both values:
// "dlt-node.backend.imageTag v2.1.0 (promoting v2.2.0)".
func diff(want, got Values) []string {
	var out []string
	for _, k := range sortedValueKeys(want) {
		g, ok := got[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("no %s (promoting %s)", k, want[k]))
		case g != want[k]:
			out = append(out, fmt.Sprintf("%s %s (promoting %s)", k, g, want[k]))
		}
	}
	return out
}

func sortedValueKeys(v Values) []string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// chartsInDescription reads the chart revisions Argo CD Notifications
// reports as running ("...; charts: dlt-backend@3.1.0 dlt-vault@1.2.0"),
// which may lag the commit when the parent app was not synced. The
// expression is compiled on first use, not at init: only a deploy-aware
// gate reads descriptions, and every start of promote would pay for it.
var chartsRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`charts:\s*(.*)$`)
})

func chartsInDescription(desc string) Values {
	m := chartsRE().FindStringSubmatch(desc)
	if m == nil {
		return nil
	}
	out := Values{}
	for _, tok := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ' ' || r == ',' }) {
		if name, ver, ok := strings.Cut(tok, "@"); ok && name != "" && ver != "" {
			out["chart "+name] = ver
		}
	}
	return out
}
