package promote

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/patch"
)

// manifestFile is one Argo CD manifest file and its Helm sources.
type manifestFile struct {
	Path    string
	File    *patch.File
	Sources []patch.HelmSource
}

func readManifest(fsys fs.FS, path string) (manifestFile, error) {
	data, err := fs.ReadFile(fsys, path)
	if err != nil {
		return manifestFile{}, fmt.Errorf("reading %s: %w", path, err)
	}
	f, err := patch.Parse(data)
	if err != nil {
		return manifestFile{}, readErr(path, err)
	}
	srcs, err := f.HelmSources()
	if err != nil {
		return manifestFile{}, fmt.Errorf("reading %s: %w", path, err)
	}
	return manifestFile{Path: path, File: f, Sources: srcs}, nil
}

// readManifests is readManifests once per env and plan: a promotion
// reads its target's manifests first, for the ordering checks waiting on
// them, and reports what went wrong there only where the plan needs them.
// each, when set, sees every file as soon as it is parsed (on the first
// read only).
func (p *Plan) readManifests(fsys fs.FS, cfg *config.Config, env string, each ...func(manifestFile)) ([]manifestFile, error) {
	if r, ok := p.read[env]; ok {
		return r.files, r.err
	}
	files, err := readManifests(fsys, cfg, env, each...)
	if p.read == nil {
		p.read = map[string]manifestsRead{}
	}
	p.read[env] = manifestsRead{files, err}
	return files, err
}

type manifestsRead struct {
	files []manifestFile
	err   error
}

// readManifests reads every manifest of env and lists their Helm sources,
// handing each file to each as soon as it is parsed.
func readManifests(fsys fs.FS, cfg *config.Config, env string, each ...func(manifestFile)) ([]manifestFile, error) {
	paths, err := cfg.ManifestFiles(fsys, env)
	if err != nil {
		return nil, err
	}
	out := make([]manifestFile, 0, len(paths))
	for _, p := range paths {
		mf, err := readManifest(fsys, p)
		if err != nil {
			return nil, err
		}
		for _, fn := range each {
			fn(mf)
		}
		out = append(out, mf)
	}
	return out, nil
}

// sourceID locates a Helm source within its file across commits.
func sourceID(s patch.HelmSource) string { return fmt.Sprintf("doc %d %s", s.Doc, s.Path) }

// planRevisions adds an edit for every Helm source whose chart gets a new
// desired version, and notes the sources it must not touch.
func planRevisions(fsys fs.FS, cfg *config.Config, env string, want map[string]string, p *Plan) error {
	if len(want) == 0 {
		return nil
	}
	files, err := p.readManifests(fsys, cfg, env)
	if err != nil {
		return err
	}
	found := map[string]bool{}
	for _, f := range files {
		p.keep(f.Path, f.File)
		for _, s := range f.Sources {
			ver, ok := want[s.Chart]
			if !ok {
				continue
			}
			found[s.Chart] = true
			comp, _ := cfg.ComponentByChart(s.Chart)
			switch {
			case !s.HasRevision:
				p.Notes = append(p.Notes, Note{File: f.Path, Message: fmt.Sprintf("%s: Helm source of chart %s has no targetRevision; left alone", s.Name, s.Chart)})
			case s.Revision.Templated:
				p.Notes = append(p.Notes, Note{File: f.Path, Line: s.Revision.Line, Message: fmt.Sprintf("%s: templated targetRevision %q of chart %s is never overwritten; pin %s by hand", s.Name, s.Revision.Value, s.Chart, ver)})
			default:
				addChart(p, s.RepoURL, s.Chart, ver)
				if s.Revision.Value == ver {
					continue
				}
				p.Edits = append(p.Edits, Edit{File: f.Path, Component: comp.Key, Key: RevisionKey, Source: sourceID(s),
					Chart: s.Chart, RepoURL: s.RepoURL, Line: s.Revision.Line, Old: s.Revision.Value, New: ver, target: s.Revision})
			}
		}
	}
	charts := make([]string, 0, len(want))
	for c := range want {
		charts = append(charts, c)
	}
	sort.Strings(charts)
	for _, chart := range charts {
		if ver := want[chart]; !found[chart] {
			p.Notes = append(p.Notes, Note{Message: fmt.Sprintf("no Helm source in the %s manifests uses chart %s; only the versions file pins %s", env, chart, ver)})
			addChart(p, "", chart, ver)
		}
	}
	sort.SliceStable(p.Notes, func(i, j int) bool { return p.Notes[i].File < p.Notes[j].File })
	return nil
}

// prefetchCharts names to the ChartRepository hook the repository of each
// Helm source in f whose chart is an in-scope component's: the sources
// planRevisions will check, known before the versions files are compared.
// It runs on each file as it is parsed, so the first index is on its way
// while the other files are read.
func (p *Plan) prefetchCharts(cfg *config.Config, f manifestFile) {
	if p.chartRepository == nil {
		return
	}
	for _, s := range f.Sources {
		comp, ok := cfg.ComponentByChart(s.Chart)
		if ok && s.RepoURL != "" && (len(p.Only) == 0 || slices.Contains(p.Only, comp.Key)) {
			p.chartRepository(s.RepoURL)
		}
	}
}

func addChart(p *Plan, repoURL, chart, version string) {
	ref := ChartRef{RepoURL: repoURL, Chart: chart, Version: version}
	for _, c := range p.Charts {
		if c == ref {
			return
		}
	}
	p.Charts = append(p.Charts, ref)
	if repoURL != "" && p.chartRepository != nil {
		p.chartRepository(repoURL)
	}
}

// readErr names the file of a parse error; a duplicate key is named by
// file and line.
func readErr(path string, err error) error {
	if de := patch.InFile(path, err); de != nil {
		return de
	}
	return fmt.Errorf("reading %s: %w", path, err)
}

// duplicateKey finds the first duplicate key in the manifests of every
// environment, for a precise message when the ordering rules could not
// read them; nil if there is none.
func duplicateKey(fsys fs.FS, cfg *config.Config) error {
	for _, env := range cfg.Environments {
		paths, err := cfg.ManifestFiles(fsys, env)
		if err != nil {
			continue
		}
		for _, p := range paths {
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				continue
			}
			if _, err := patch.Parse(data); err != nil {
				if de := patch.InFile(p, err); de != nil {
					return de
				}
			}
		}
	}
	return nil
}
