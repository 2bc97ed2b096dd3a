package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"
)

// PackageChartDir packages the chart kept at dir of fsys as `helm
// template <dir>` loads it: .helmignore and Helm's default ignore rules
// applied, byte order marks dropped. When Chart.yaml (or requirements.yaml)
// declares a dependency that charts/ lacks, it first does what Argo CD's
// repo-server does on helm's "missing in charts/ directory" error, `helm
// dependency build` (see buildDependencies), fetching charts through
// charts. The tree is never written.
func PackageChartDir(ctx context.Context, fsys fs.FS, dir string, charts ChartFetcher) ([]byte, error) {
	dir = path.Clean(dir)
	files, err := readChartDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("reading chart %s: %w", dir, err)
	}
	ch, err := loader.LoadFiles(loadable(files))
	if err != nil {
		return nil, fmt.Errorf("loading chart %s: %w", dir, err)
	}
	if missingDependencies(ch) {
		if charts == nil {
			return nil, fmt.Errorf("chart %s: its dependencies are not in charts/ and there is no chart source to fetch them", dir)
		}
		b := &depBuild{fsys: fsys, dir: dir, charts: charts, chart: ch}
		if files, err = b.run(ctx, files); err != nil {
			return nil, fmt.Errorf("chart %s: helm dependency build: %w", dir, err)
		}
	}
	top := path.Base(dir)
	if top == "." {
		top = ch.Name()
	}
	return tarChart(top, loadable(files))
}

// dirFile is one file of a chart directory, with what the ignore rules
// look at.
type dirFile struct {
	name string // slash path relative to the chart directory
	data []byte
	info fs.FileInfo
}

// readChartDir reads every regular file below dir (ignore rules are
// applied later: `helm dependency build` writes charts/ first).
func readChartDir(fsys fs.FS, dir string) ([]dirFile, error) {
	var files []dirFile
	err := fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		info, err := fs.Stat(fsys, p)
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("cannot load irregular file %s as it has file mode type bits set", p)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		files = append(files, dirFile{name: strings.TrimPrefix(p, dir+"/"), data: data, info: info})
		return nil
	})
	return files, err
}

// loadable applies Helm's LoadDir filtering: the chart's .helmignore plus
// the default rules, a directory rule hiding everything below it.
func loadable(files []dirFile) []*loader.BufferedFile {
	rules := ignore.Empty()
	for _, f := range files {
		if f.name == ignore.HelmIgnore {
			if r, err := ignore.Parse(bytes.NewReader(f.data)); err == nil {
				rules = r
			}
		}
	}
	rules.AddDefaults()
	var out []*loader.BufferedFile
	for _, f := range files {
		if ignoredDir(rules, f.name) || rules.Ignore(f.name, f.info) {
			continue
		}
		out = append(out, &loader.BufferedFile{Name: f.name, Data: bytes.TrimPrefix(f.data, []byte("\xef\xbb\xbf"))})
	}
	return out
}

// ignoredDir reports whether a directory above name is ignored.
func ignoredDir(rules *ignore.Rules, name string) bool {
	parts := strings.Split(name, "/")
	for i := 1; i < len(parts); i++ {
		d := strings.Join(parts[:i], "/")
		if rules.Ignore(d, dirInfo{path.Base(d)}) {
			return true
		}
	}
	return false
}

// missingDependencies is helm's CheckDependencies: a declared dependency
// with no chart of that name in charts/.
func missingDependencies(ch *chart.Chart) bool {
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	for _, r := range ch.Metadata.Dependencies {
		if !have[r.Name] {
			return true
		}
	}
	return false
}

// tarChart lays files out as `helm package` does, under top/.
func tarChart(top string, files []*loader.BufferedFile) ([]byte, error) {
	sort.SliceStable(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + f.Name, Mode: 0o644, Size: int64(len(f.Data)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
