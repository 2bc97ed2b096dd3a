package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"
)

// chartSpec is what of a Helm chart generator's configuration names a
// path: a helmCharts entry with its kustomization's helmGlobals, an
// entry of the older helmChartInflationGenerator, or a
// HelmChartInflationGenerator document of generators.
type chartSpec struct {
	Kind                  string   `yaml:"kind" json:"kind"`
	Name                  string   `yaml:"name" json:"name"`
	Version               string   `yaml:"version" json:"version"`
	ReleaseName           string   `yaml:"releaseName" json:"releaseName"`
	ChartHome             string   `yaml:"chartHome" json:"chartHome"`
	ValuesFile            string   `yaml:"valuesFile" json:"valuesFile"`
	AdditionalValuesFiles []string `yaml:"additionalValuesFiles" json:"additionalValuesFiles"`
}

// checkHelmCharts refuses, before kustomize runs, every Helm chart
// generator whose configuration would have kustomize touch the machine's
// files. kustomize's generator writes the values file it hands helm at
// <its temporary directory>/<chart name>-kustomize-values.yaml with the
// os package, and looks for the chart at <chart home>/<name>: neither
// goes through the build's file system, so the name must be one path
// element, and the chart home and value files must be paths of the
// repository. The backend checks again what helm is asked for
// (kustomizeHelmBackend); this names the kustomization and the field.
func checkHelmCharts(st *staging) error {
	roots := map[string]bool{}
	for r := range st.roots {
		roots[r] = true
	}
	var gens []string
	for _, r := range sortedKeys(st.roots) {
		data, _, err := readKustomization(st.fsys, r)
		if err != nil {
			continue
		}
		var k types.Kustomization
		if k.Unmarshal(data) != nil {
			continue
		}
		for _, g := range k.Generators {
			p := path.Join(r, g)
			if !fs.ValidPath(p) {
				continue // kustomize refuses it, or it is remote
			}
			if fi, err := fs.Stat(st.fsys, p); err == nil && fi.IsDir() {
				_ = kustomizeRoots(st.fsys, p, roots, 0) // a failure is the build's to report
				gens = append(gens, p)
			}
		}
	}
	for _, r := range sortedKeys(roots) {
		if err := checkKustomizationCharts(st, r); err != nil {
			return err
		}
	}
	for _, g := range gens {
		if err := checkBuiltGenerators(st, g); err != nil {
			return err
		}
	}
	return nil
}

// checkKustomizationCharts checks the chart generators the kustomization
// at dir configures itself or in a generators file.
func checkKustomizationCharts(st *staging, dir string) error {
	data, name, err := readKustomization(st.fsys, dir)
	if err != nil {
		return nil // not a kustomization: the build says so
	}
	var k types.Kustomization
	if k.Unmarshal(data) != nil {
		return nil
	}
	file := path.Join(dir, name)
	var specs []chartSpec
	home := ""
	if k.HelmGlobals != nil {
		home = k.HelmGlobals.ChartHome
	}
	for _, c := range k.HelmCharts {
		specs = append(specs, chartSpec{Name: c.Name, Version: c.Version, ReleaseName: c.ReleaseName, ChartHome: home,
			ValuesFile: c.ValuesFile, AdditionalValuesFiles: c.AdditionalValuesFiles})
	}
	for _, c := range k.HelmChartInflationGenerator {
		specs = append(specs, chartSpec{Name: c.ChartName, Version: c.ChartVersion, ReleaseName: c.ReleaseName, ChartHome: c.ChartHome, ValuesFile: c.Values})
	}
	for _, s := range specs {
		if err := s.check(dir, file); err != nil {
			return err
		}
	}
	for _, g := range k.Generators {
		p := path.Join(dir, g)
		if !fs.ValidPath(p) {
			continue
		}
		gdata, err := fs.ReadFile(st.fsys, p)
		if err != nil {
			continue // a directory (built below) or missing (the build says so)
		}
		if err := checkGeneratorDocs(gdata, dir, p); err != nil {
			return err
		}
	}
	return nil
}

// checkGeneratorDocs checks every HelmChartInflationGenerator document of
// a generators file, whose paths are relative to the kustomization at dir.
func checkGeneratorDocs(data []byte, dir, file string) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var s chartSpec
		err := dec.Decode(&s)
		if errors.Is(err, io.EOF) || err != nil && !isYAMLTypeError(err) {
			return nil
		}
		if s.Kind == "HelmChartInflationGenerator" {
			if err := s.check(dir, file); err != nil {
				return err
			}
		}
	}
}

// checkBuiltGenerators builds a generators directory as kustomize will
// (in memory, Helm off) and checks the generator configurations it gives:
// its patches and name prefixes may change what its files say.
func checkBuiltGenerators(st *staging, dir string) error {
	if st.mem == nil {
		return nil
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(st.mem, path.Join("/", dir))
	if err != nil {
		return nil // the kustomizations in it were checked as they are written
	}
	for _, r := range m.Resources() {
		if r.GetKind() != "HelmChartInflationGenerator" {
			continue
		}
		j, err := r.MarshalJSON()
		if err != nil {
			return err
		}
		var s chartSpec
		if err := sigsyaml.Unmarshal(j, &s); err != nil {
			continue
		}
		if err := s.check(dir, dir+" (as built)"); err != nil {
			return err
		}
	}
	return nil
}

// check refuses what would lead kustomize or helm out of the repository
// the kustomization at dir belongs to. Errors name the file, the chart
// and the value as written.
func (s chartSpec) check(dir, file string) error {
	what := fmt.Sprintf("%s: helm chart %q", file, s.Name)
	if err := validChartName(s.Name); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if strings.ContainsAny(s.Version, `/\`) || s.Version == ".." {
		return fmt.Errorf("%s: version %q is not a chart version", what, s.Version)
	}
	if s.ReleaseName != "" {
		if err := validReleaseName(s.ReleaseName); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	paths := [][2]string{{"chartHome", s.ChartHome}, {"valuesFile", s.ValuesFile}}
	for _, f := range s.AdditionalValuesFiles {
		paths = append(paths, [2]string{"additionalValuesFiles", f})
	}
	for _, p := range paths {
		if p[1] == "" {
			continue
		}
		if !inRepo(dir, p[1]) {
			return fmt.Errorf("%s: %s %s: %w", what, p[0], p[1], ErrOutsideRepo)
		}
	}
	return nil
}

// inRepo reports whether p, relative to dir, names a path of the
// repository dir belongs to (another mounted repository's root is its
// own).
func inRepo(dir, p string) bool {
	if path.IsAbs(p) {
		return false
	}
	j := path.Join(dir, p)
	root := repoRoot(dir)
	if root == "." {
		return j != ".." && !strings.HasPrefix(j, "../") && repoRoot(j) == "."
	}
	return j == root || strings.HasPrefix(j, root+"/")
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
