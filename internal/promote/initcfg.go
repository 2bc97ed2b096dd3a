package promote

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

// ErrNothingToInfer marks a repository without versions/<env>.yaml files.
var ErrNothingToInfer = errors.New("no versions/<env>.yaml files to infer a config from")

// envRank orders well-known environment names along a promotion path.
var envRank = []string{"dev", "development", "test", "qa", "int", "integration", "sit", "uat",
	"stage", "staging", "preprod", "pre-prod", "prod", "production"}

// Init drafts a .promote.yaml from the repository layout: environments from
// versions/<env>.yaml, manifests from argocd/<env>/, and each chart of a
// Helm source matched to the versions entry whose chartVersion pins it in
// the most environments. It returns the draft and notes for the reviewer.
func Init(fsys fs.FS, fallbackRepoURL string) ([]byte, []string, error) {
	files, _ := fs.Glob(fsys, "versions/*.yaml")
	if len(files) == 0 {
		return nil, nil, ErrNothingToInfer
	}
	var envs []string
	for _, f := range files {
		envs = append(envs, strings.TrimSuffix(path.Base(f), ".yaml"))
	}
	sortEnvs(envs)
	notes := []string{fmt.Sprintf("environments ordered as %s: check this is your promotion path", strings.Join(envs, " -> "))}
	probe := &config.Config{Versions: "versions/{env}.yaml", Manifests: []string{"argocd/{env}/*.yaml"}}
	entries := map[string]map[string]string{}   // env -> key path -> chartVersion
	revisions := map[string]map[string]string{} // chart -> env -> targetRevision
	repoURLs := map[string]int{}
	for _, env := range envs {
		data, err := fs.ReadFile(fsys, probe.VersionsPath(env))
		if err != nil {
			return nil, nil, err
		}
		entries[env] = chartVersionEntries(data)
		mfs, _ := readManifestsLenient(fsys, probe, env, func(p string, err error) {
			notes = append(notes, fmt.Sprintf("skipped %s: %v", p, err))
		})
		for _, mf := range mfs {
			for _, s := range mf.Sources {
				if revisions[s.Chart] == nil {
					revisions[s.Chart] = map[string]string{}
				}
				revisions[s.Chart][env] = s.Revision.Value
			}
			for _, u := range refRepoURLs(mf.File.Bytes()) {
				repoURLs[u]++
			}
		}
	}
	comps, more := matchCharts(entries, revisions)
	notes = append(notes, more...)
	repoURL := mostCommon(repoURLs, fallbackRepoURL)
	if repoURL == "" {
		repoURL = "https://gitlab.example.com/CHANGE-ME/gitops-repo.git"
		notes = append(notes, "repoURL: no `ref:` source or remote found; set it to this repository's URL as Argo CD sees it")
	}
	return renderConfig(repoURL, envs, comps), notes, nil
}

func sortEnvs(envs []string) {
	rank := func(e string) int {
		if i := slices.Index(envRank, strings.ToLower(e)); i >= 0 {
			return i
		}
		return len(envRank)
	}
	sort.SliceStable(envs, func(i, j int) bool {
		if rank(envs[i]) != rank(envs[j]) {
			return rank(envs[i]) < rank(envs[j])
		}
		return envs[i] < envs[j]
	})
}

// chartVersionEntries maps the key path of every mapping holding a
// chartVersion scalar to that version.
func chartVersionEntries(data []byte) map[string]string {
	out := map[string]string{}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return out
	}
	var walk func(n *yaml.Node, prefix []string)
	walk = func(n *yaml.Node, prefix []string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == versions.ChartVersionKey && v.Kind == yaml.ScalarNode && len(prefix) > 0 {
				out[strings.Join(prefix, ".")] = v.Value
			}
			walk(v, append(slices.Clone(prefix), k.Value))
		}
	}
	walk(doc.Content[0], nil)
	return out
}

// matchCharts pairs charts with versions entries, best evidence first.
func matchCharts(entries map[string]map[string]string, revisions map[string]map[string]string) ([]config.Component, []string) {
	type cand struct {
		chart, key string
		score      int
	}
	var cands []cand
	for chart, revs := range revisions {
		for env, es := range entries {
			for key, ver := range es {
				s := 0
				if revs[env] == ver {
					s += 2
				}
				if strings.Contains(chart, key[strings.LastIndex(key, ".")+1:]) {
					s++
				}
				if s > 0 {
					cands = append(cands, cand{chart, key, s})
				}
			}
		}
	}
	total := map[[2]string]int{}
	for _, c := range cands {
		total[[2]string{c.chart, c.key}] += c.score
	}
	pairs := make([][2]string, 0, len(total))
	for p := range total {
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if total[pairs[i]] != total[pairs[j]] {
			return total[pairs[i]] > total[pairs[j]]
		}
		return pairs[i][1]+pairs[i][0] < pairs[j][1]+pairs[j][0]
	})
	usedChart, usedKey := map[string]bool{}, map[string]bool{}
	var comps []config.Component
	for _, p := range pairs {
		if usedChart[p[0]] || usedKey[p[1]] {
			continue
		}
		usedChart[p[0]], usedKey[p[1]] = true, true
		comps = append(comps, config.Component{Key: p[1], Chart: p[0]})
	}
	sort.Slice(comps, func(i, j int) bool { return comps[i].Key < comps[j].Key })
	var notes []string
	for chart := range revisions {
		if !usedChart[chart] {
			notes = append(notes, fmt.Sprintf("chart %s matched no versions entry with a chartVersion; add it by hand if promote should pin it", chart))
		}
	}
	sort.Strings(notes)
	return comps, notes
}

func refRepoURLs(data []byte) []string {
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if u, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "-")), "repoURL:"); ok {
			u = strings.Trim(strings.TrimSpace(strings.SplitN(u, " #", 2)[0]), `"'`)
			if strings.HasSuffix(u, ".git") {
				out = append(out, u)
			}
		}
	}
	return out
}

func mostCommon(counts map[string]int, fallback string) string {
	best, n := fallback, 0
	for u, c := range counts {
		if c > n || (c == n && u < best) {
			best, n = u, c
		}
	}
	return best
}

func renderConfig(repoURL string, envs []string, comps []config.Component) []byte {
	var b strings.Builder
	b.WriteString("# .promote.yaml drafted by `promote init`: review every line before committing.\n")
	fmt.Fprintf(&b, "repoURL: %s  # this repository, as Argo CD `ref:` sources name it\n", repoURL)
	fmt.Fprintf(&b, "environments: [%s]  # promotion order\n", strings.Join(envs, ", "))
	b.WriteString("versions: versions/{env}.yaml\nmanifests: [\"argocd/{env}/*.yaml\"]  # Application / ApplicationSet files\n")
	b.WriteString("components:  # versions-file key path -> Helm chart it pins\n")
	for _, c := range comps {
		fmt.Fprintf(&b, "  %s: {chart: %s}\n", c.Key, c.Chart)
	}
	return []byte(b.String())
}
