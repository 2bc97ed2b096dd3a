package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"
)

// chartFS opens a packaged chart as a file tree rooted at the chart
// directory, where chart-relative value files are read and matched.
func chartFS(tgz []byte) (fs.FS, error) {
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, fmt.Errorf("reading chart archive: %w", err)
	}
	tr := tar.NewReader(gz)
	out := fstest.MapFS{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading chart archive: %w", err)
		}
		_, rel, ok := strings.Cut(h.Name, "/")
		if !ok || h.Typeflag != tar.TypeReg {
			continue
		}
		rel = path.Clean(rel)
		if !fs.ValidPath(rel) {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("reading chart archive: %w", err)
		}
		out[rel] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
}
