package render

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// download is helm's downloadAll then safeMoveDeps, on the file list.
func (b *depBuild) download(ctx context.Context, files []dirFile, deps []*chart.Dependency) ([]dirFile, error) {
	got := map[string][]byte{} // file name in charts/ -> archive
	local := map[string]bool{} // dependencies without a repository
	for _, d := range deps {
		name, data, err := b.fetch(ctx, d)
		if err != nil {
			return nil, err
		}
		if d.Repository == "" {
			local[d.Name] = true
		}
		if name != "" {
			got[name] = data
		}
	}
	var out []dirFile
	for _, f := range files {
		if dir, base := path.Split(f.name); dir == "charts/" {
			if _, replaced := got[base]; replaced {
				continue
			}
			if err := checkArchive(f.data); err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			if ch, err := loader.LoadArchive(bytes.NewReader(f.data)); err == nil && !local[ch.Name()] {
				continue // an outdated dependency: helm deletes it
			}
		}
		out = append(out, f)
	}
	for name, data := range got {
		out = append(out, dirFile{name: "charts/" + name, data: data, info: fileInfo{path.Base(name), int64(len(data))}})
	}
	return out, nil
}

// fetch returns the archive for one locked dependency and its file name
// in charts/ ("" for a dependency that stays as charts/ has it).
func (b *depBuild) fetch(ctx context.Context, d *chart.Dependency) (string, []byte, error) {
	switch r := d.Repository; {
	case r == "":
		return "", nil, b.checkVendored(d)
	case strings.HasPrefix(r, "file://"):
		sub, err := b.localChart(r)
		if err != nil {
			return "", nil, err
		}
		c, err := semver.NewConstraint(d.Version)
		if err != nil {
			return "", nil, fmt.Errorf("dependency %s has an invalid version/constraint format: %w", d.Name, err)
		}
		v, err := semver.NewVersion(sub.Metadata.Version)
		if err != nil {
			return "", nil, err
		}
		if !c.Check(v) {
			return "", nil, fmt.Errorf("can't get a valid version for dependency %s", d.Name)
		}
		files, err := readChartDir(b.fsys, strings.TrimSuffix(path.Join(b.dir, strings.TrimPrefix(r, "file://")), "/"))
		if err != nil {
			return "", nil, err
		}
		data, err := tarChart(sub.Name(), loadable(files))
		return sub.Name() + "-" + sub.Metadata.Version + ".tgz", data, err
	}
	data, err := b.charts.Fetch(ctx, d.Repository, d.Name, d.Version)
	if err != nil {
		return "", nil, fmt.Errorf("could not download %s %s from %s: %w", d.Name, d.Version, d.Repository, err)
	}
	return d.Name + "-" + d.Version + ".tgz", data, nil
}

// checkVendored validates a dependency without a repository: charts/<name>
// must be a chart directory whose version satisfies the constraint.
func (b *depBuild) checkVendored(d *chart.Dependency) error {
	sub, err := b.localChart("charts/" + d.Name)
	if err != nil {
		return fmt.Errorf("unable to load chart 'charts/%s': %w", d.Name, err)
	}
	c, err := semver.NewConstraint(d.Version)
	if err != nil {
		return fmt.Errorf("dependency %s has an invalid version/constraint format: %w", d.Name, err)
	}
	v, err := semver.NewVersion(sub.Metadata.Version)
	if err != nil {
		return fmt.Errorf("invalid version %s for dependency %s: %w", d.Version, d.Name, err)
	}
	if !c.Check(v) {
		return fmt.Errorf("dependency %s at version %s does not satisfy the constraint %s", d.Name, sub.Metadata.Version, d.Version)
	}
	return nil
}

// fileInfo and dirInfo describe synthetic entries for the ignore rules.
type fileInfo struct {
	name string
	size int64
}

func (f fileInfo) Name() string       { return f.name }
func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) Mode() fs.FileMode  { return 0o644 }
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return false }
func (f fileInfo) Sys() any           { return nil }

type dirInfo struct{ name string }

func (d dirInfo) Name() string       { return d.name }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o755 }
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }

var _ os.FileInfo = fileInfo{}
