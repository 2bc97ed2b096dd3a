// Package chartpack packages the example chart directories for tests the
// way scripts/package_charts.py packages them for the demo: Chart.yaml's
// version set to the requested one and appVersion to "v<version>", the
// chart's `versions` list left out, fixed modification times. The same
// chart and version therefore always give the same bytes, in every test
// package and in the demo's chart repository.
package chartpack

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"time"
)

var (
	versionLine    = regexp.MustCompile(`(?m)^version:.*$`)
	appVersionLine = regexp.MustCompile(`(?m)^appVersion:.*$`)
	mtime          = time.Unix(1700000000, 0)
)

// Package packs the chart directory src as chart name at version, laid out
// as `helm package` does (<name>/Chart.yaml, <name>/templates/...).
func Package(src fs.FS, name, version string) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.ModTime = mtime
	tw := tar.NewWriter(gz)
	err := fs.WalkDir(src, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || p == "versions" {
			return err
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		if p == "Chart.yaml" {
			data = versionLine.ReplaceAll(data, []byte("version: "+version))
			data = appVersionLine.ReplaceAll(data, []byte(`appVersion: "v`+version+`"`))
		}
		hdr := &tar.Header{Name: path.Join(name, p), Mode: 0o644, Size: int64(len(data)), ModTime: mtime}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = gz.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("packaging chart %s %s: %w", name, version, err)
	}
	return buf.Bytes(), nil
}
