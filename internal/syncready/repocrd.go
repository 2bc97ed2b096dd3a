package syncready

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// RepoCRDs finds the CustomResourceDefinitions a repository keeps as
// files (a chart's crds/ directory, a crds.yaml beside the manifests):
// YAML files with "crd" in their path that hold one. It reads only those
// files, and only when some custom resource has no CRD an app renders.
// A file that does not parse is skipped: it is no CRD the env can use,
// and its own app reports it.
func RepoCRDs(fsys fs.FS) ([]CRD, error) {
	var out []CRD
	err := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := path.Ext(p)
		if e.IsDir() || ext != ".yaml" && ext != ".yml" || !strings.Contains(strings.ToLower(p), "crd") {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		if bytes.Contains(data, []byte("CustomResourceDefinition")) {
			out = append(out, crdsOf(p, data)...)
		}
		return nil
	})
	return out, err
}

func crdsOf(file string, data []byte) []CRD {
	var out []CRD
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) || err != nil {
			return out
		}
		var body map[string]any
		if n.Decode(&body) != nil || len(n.Content) == 0 {
			continue
		}
		if c, ok := ReadCRD(body, fmt.Sprintf("%s:%d", file, n.Content[0].Line)); ok {
			out = append(out, c)
		}
	}
}
