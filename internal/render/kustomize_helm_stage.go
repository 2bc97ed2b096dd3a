package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/gitops-promote/gitops-promote/internal/render/kustomizehelm"
)

// kustomizeWithHelm builds the staged tree again on a copy on disk, with
// kustomize's Helm generator on and its helm command answered by this
// process (internal/render/kustomizehelm over h). On disk, because the
// generator looks for charts in the chart home, and helm pulls them
// there, with the os package, not through kustomize's file system. A
// failing helm command is reported with its own error, which names the
// chart and its repository's host.
//
// Everything the build touches on disk is confined to the copy (the
// repository's files, the charts helm pulls into it): its kustomize file
// system is confinedFS, and the helm commands this process answers check
// their paths against the same root (kustomizeHelmBackend). The chart
// generator's own writes, named after the chart, are made safe before the
// build starts (checkHelmCharts).
func kustomizeWithHelm(ctx context.Context, st *staging, bf buildFlags, h *KustomizeHelm) (resmap.ResMap, error) {
	if bf.helmCommand == "" {
		return nil, fmt.Errorf("kustomize build %s: must specify --helm-command", st.dir)
	}
	tmp, err := os.MkdirTemp("", "gitops-promote-kustomize-")
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", st.dir, err)
	}
	defer os.RemoveAll(tmp)
	if err := checkHelmCharts(st); err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", st.dir, err)
	}
	jail, err := newConfinement(tmp)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", st.dir, err)
	}
	tmp = jail.root // kustomize resolves links in its root: compare like with like
	disk := confinedFS{c: jail, disk: filesys.MakeFsOnDisk()}
	if err := st.copyTo(disk, tmp); err != nil {
		return nil, fmt.Errorf("kustomize build %s: staging on disk: %w", st.dir, err)
	}
	for _, home := range chartHomes(st.fsys, st.roots) {
		if st.roots[home] || coveredBy(home, st.roots) || st.whole && repoRoot(home) == repoRoot(st.dir) {
			continue
		}
		if err := copyTree(st.fsys, home, disk, tmp); err != nil {
			return nil, fmt.Errorf("kustomize build %s: staging on disk: %w", st.dir, err)
		}
	}
	cmd, err := kustomizehelm.Start(ctx, kustomizeHelmBackend{KustomizeHelm: *h, jail: jail})
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: helm charts: %w", st.dir, err)
	}
	defer cmd.Close()
	opts := bf.options()
	opts.PluginConfig.HelmConfig = types.HelmConfig{Enabled: true, Command: cmd.Path,
		ApiVersions: bf.helmAPIVersions, KubeVersion: bf.helmKubeVersion, Debug: bf.helmDebug}
	m, err := krusty.MakeKustomizer(opts).Run(disk, filepath.Join(tmp, filepath.FromSlash(st.dir)))
	if rerr := jail.Refused(); rerr != nil {
		// kustomize may have taken a refusal for "no such file" and gone
		// on: whatever it built then is not what Argo CD would build.
		return nil, fmt.Errorf("kustomize build %s: %w", st.dir, rerr)
	}
	if err != nil {
		if herr := cmd.Err(); herr != nil {
			return nil, fmt.Errorf("kustomize build %s: %w", st.dir, herr)
		}
		msg := strings.ReplaceAll(oneLine(err.Error()), tmp+string(filepath.Separator), "")
		return nil, fmt.Errorf("kustomize build %s: %s", st.dir, strings.ReplaceAll(msg, cmd.Path, "helm"))
	}
	return m, nil
}

// chartHomes are the chart homes the kustomizations at roots name
// (helmGlobals.chartHome, the older helmChartInflationGenerator's, and
// a chartHome in a HelmChartInflationGenerator config of generators), as
// directories of fsys. kustomize's Helm generator looks for charts there
// with the os package, below the kustomization's root or not: they are
// staged on disk too. An absolute chart home is the machine's own.
func chartHomes(fsys fs.FS, roots map[string]bool) []string {
	seen := map[string]bool{}
	for root := range roots {
		data, _, err := readKustomization(fsys, root)
		if err != nil {
			continue
		}
		var k struct {
			HelmGlobals struct {
				ChartHome string `yaml:"chartHome"`
			} `yaml:"helmGlobals"`
			Inflators []struct {
				ChartHome string `yaml:"chartHome"`
			} `yaml:"helmChartInflationGenerator"`
			Generators []string `yaml:"generators"`
		}
		if yaml.Unmarshal(data, &k) != nil {
			continue
		}
		homes := []string{k.HelmGlobals.ChartHome}
		for _, g := range k.Inflators {
			homes = append(homes, g.ChartHome)
		}
		for _, g := range k.Generators {
			homes = append(homes, generatorChartHomes(fsys, path.Join(root, g))...)
		}
		for _, h := range homes {
			p := path.Join(root, h)
			if h == "" || path.IsAbs(h) || !fs.ValidPath(p) {
				continue
			}
			if st, err := fs.Stat(fsys, p); err == nil && st.IsDir() {
				seen[p] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// generatorChartHomes reads the chartHome of every
// HelmChartInflationGenerator document of a generators file.
func generatorChartHomes(fsys fs.FS, file string) []string {
	if !fs.ValidPath(file) {
		return nil
	}
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil // a directory, a remote entry: no config of its own
	}
	var out []string
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc struct {
			Kind      string `yaml:"kind"`
			ChartHome string `yaml:"chartHome"`
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) || err != nil && !isYAMLTypeError(err) {
			return out
		}
		if doc.Kind == "HelmChartInflationGenerator" && doc.ChartHome != "" {
			out = append(out, doc.ChartHome)
		}
	}
}

func isYAMLTypeError(err error) bool {
	var te *yaml.TypeError
	return errors.As(err, &te)
}
