package charts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Offline mode (Client.LocalDir): charts are the files
// <LocalDir>/<chart>-<version>.tgz that `helm package` writes, whatever
// repository the caller names.

func localFileName(chart, version string) string {
	return path.Base(chart) + "-" + version + ".tgz"
}

func (c *Client) localVersions(r *repoRef, chart string) ([]string, error) {
	ents, err := os.ReadDir(c.LocalDir)
	if err != nil {
		return nil, fmt.Errorf("read charts dir %s: %w", c.LocalDir, err)
	}
	prefix := path.Base(chart) + "-"
	var vs []string
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".tgz") {
			continue
		}
		v := strings.TrimSuffix(strings.TrimPrefix(name, prefix), ".tgz")
		// "foo-bar-1.0.0.tgz" also starts with "foo-"; only a version
		// after the prefix makes the file one of chart foo's.
		if _, err := semver.NewVersion(v); err == nil {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil, wrapf(ErrChartNotFound, "chart %s (from %s) not found in charts dir %s", chart, r.display, c.LocalDir)
	}
	return sortVersions(vs), nil
}

func (c *Client) localPath(r *repoRef, chart, version string) (string, error) {
	p := filepath.Join(c.LocalDir, localFileName(chart, version))
	info, err := os.Stat(p)
	if err == nil && info.Mode().IsRegular() {
		return p, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("chart %s version %s: %w", chart, version, err)
	}
	vs, lerr := c.localVersions(r, chart)
	if errors.Is(lerr, ErrChartNotFound) {
		return "", wrapf(ErrChartNotFound, "chart %s version %s (from %s) not found in charts dir %s",
			chart, version, r.display, c.LocalDir)
	}
	if lerr != nil {
		return "", lerr
	}
	return "", &VersionNotFoundError{
		Repo: "charts dir " + c.LocalDir, Chart: chart, Version: version,
		Nearest: nearest(vs, version, nearestCount), Total: len(vs),
	}
}

func (c *Client) readLocal(r *repoRef, chart, version string) ([]byte, error) {
	p, err := c.localPath(r, chart, version)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("chart %s version %s: %w", chart, version, err)
	}
	return data, nil
}
