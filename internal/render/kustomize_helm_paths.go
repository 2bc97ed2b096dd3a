package render

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
	loader3 "helm.sh/helm/v3/pkg/chart/loader"
	chartutil3 "helm.sh/helm/v3/pkg/chartutil"
)

// ErrChartName: a chart name that is not a single path element. kustomize
// joins the name of a helmCharts entry to its chart home and to its own
// temporary directory, and helm pull expands an archive into the
// directory its Chart.yaml names: "../x" or ".docker" there would be a
// file written anywhere.
var ErrChartName = errors.New("is not a chart name (one path element, no separator, not . or ..)")

// validChartName is Helm's rule for a chart's name (chart.Metadata's
// Validate, chartutil.Expand): one path element. A backslash is refused
// too: it is a separator where Windows runs the same repository.
func validChartName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || filepath.Base(name) != name {
		return fmt.Errorf("chart name %q %w", name, ErrChartName)
	}
	return nil
}

// validReleaseName is helm template's check of the release name (its
// install action's, before it renders anything).
func validReleaseName(name string) error {
	if err := chartutil3.ValidateReleaseName(name); err != nil {
		return fmt.Errorf("release name %q: %w", name, err)
	}
	return nil
}

// archiveChartName checks the name in a chart archive's Chart.yaml before
// anything of it is written: Helm's Expand makes the directory of that
// name below the untar directory.
func archiveChartName(data []byte) error {
	files, err := loader3.LoadArchiveFiles(bytes.NewReader(data))
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.Name != "Chart.yaml" {
			continue
		}
		var md struct {
			Name string `yaml:"name"`
		}
		if err := yaml.Unmarshal(f.Data, &md); err != nil {
			return errors.New("cannot load Chart.yaml of the archive")
		}
		if err := validChartName(md.Name); err != nil {
			return fmt.Errorf("archive's Chart.yaml: %w", err)
		}
		return nil
	}
	return errors.New("chart archive has no Chart.yaml")
}

// kustomizeValuesPrefix starts the name of the directory kustomize's Helm
// generator writes the values file it passes to helm template in
// (os.MkdirTemp("", "kustomize-helm-"), HelmChartInflationGenerator's
// establishTmpDir), as <chart name>-kustomize-values.yaml.
const kustomizeValuesPrefix = "kustomize-helm-"

// valuesFile is where helm template may read the values file f kustomize
// names for the chart at chartPath: inside the staged copy (kustomize's
// additionalValuesFiles, joined to the kustomization's root), or the
// one file kustomize itself wrote for this chart in its temporary
// directory. Anything else is refused, naming the file as kustomize wrote
// it.
func (b kustomizeHelmBackend) valuesFile(f, chartPath string) (string, error) {
	if kustomizeValuesFile(f, filepath.Base(chartPath)) {
		return f, nil
	}
	r, err := b.jail.check(f)
	if err != nil {
		return "", fmt.Errorf("values file: %w", err)
	}
	return r, nil
}

// kustomizeValuesFile reports whether f is <chart>-kustomize-values.yaml,
// a regular file (not a link) directly in a kustomize-helm-* directory
// (not a link either) of the temporary directory.
func kustomizeValuesFile(f, chart string) bool {
	f = filepath.Clean(f)
	dir := filepath.Dir(f)
	if filepath.Base(f) != chart+"-kustomize-values.yaml" || !strings.HasPrefix(filepath.Base(dir), kustomizeValuesPrefix) {
		return false
	}
	tmp, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		return false
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil || parent != tmp {
		return false
	}
	di, err := os.Lstat(dir)
	if err != nil || !di.IsDir() {
		return false
	}
	fi, err := os.Lstat(f)
	return err == nil && fi.Mode().Type() == 0 && fi.Mode().Type()&fs.ModeSymlink == 0
}
