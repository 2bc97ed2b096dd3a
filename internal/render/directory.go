package render

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/gobwas/glob"
)

// manifestName is Argo CD's pattern for the files of directory sources.
var manifestName = regexp.MustCompile(`^.*\.(yaml|yml|json|jsonnet)$`)

// directory renders a plain directory source like Argo CD: every *.yaml,
// *.yml, *.json and *.jsonnet file under dir in fsys (subdirectories only when
// recurse), in lexical walk order, minus files whose path relative to dir
// matches exclude or does not match include. Patterns use Argo CD's glob
// syntax (github.com/gobwas/glob without separators: `*` also matches `/`,
// `{a,b}` alternatives); "" disables the filter.
//
// Each document is returned as written in its file (comments kept),
// preceded by "---\n# Source: <relative path>\n" like Helm output. Empty
// documents are dropped. As in Argo CD, a YAML file whose first document
// does not parse as a Kubernetes object is skipped unless it looks like a
// manifest (apiVersion:, kind: and metadata: all appear); other parse
// failures are errors. A JSON file must hold exactly one object. A file
// holding the marker "+argocd:skip-file-rendering" is skipped.
//
// .jsonnet files (never .libsonnet ones, which only imports read) are
// evaluated in walk order among the other files, as Argo CD does whether
// or not the source has a jsonnet block; each object they produce is a
// document. anyExt is Argo CD's directory.disableExtensionFilter: every
// file is a candidate, selected by include and exclude alone, and read as
// YAML unless it ends in .json or .jsonnet.
func directory(fsys fs.FS, dir string, recurse bool, include, exclude string, jr jsonnetRun, anyExt bool) ([]byte, error) {
	dir = path.Clean(dir)
	inc, err := compileGlob(include)
	if err != nil {
		return nil, err
	}
	exc, err := compileGlob(exclude)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && !recurse {
				return fs.SkipDir
			}
			return nil
		}
		rel := relPath(dir, p)
		if (!anyExt && !manifestName.MatchString(d.Name())) ||
			(exc != nil && exc.Match(rel)) || (inc != nil && !inc.Match(rel)) {
			return nil
		}
		docs, err := readManifests(fsys, dir, p, jr)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		for _, doc := range docs {
			fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", rel, doc)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("render directory %q: %w", dir, err)
	}
	return out.Bytes(), nil
}

func compileGlob(pattern string) (glob.Glob, error) {
	if pattern == "" {
		return nil, nil
	}
	g, err := glob.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid directory glob %q: %w", pattern, err)
	}
	return g, nil
}

func relPath(dir, p string) string {
	if dir == "." {
		return p
	}
	return strings.TrimPrefix(p, dir+"/")
}

// skipMarker anywhere in a file (usually as "# +argocd:skip-file-rendering")
// makes Argo CD skip the file in a directory source.
const skipMarker = "+argocd:skip-file-rendering"

// readManifests returns the non-empty documents of one manifest file.
// Symlinks are followed; anything that is not a regular file is skipped,
// as Argo CD does.
func readManifests(fsys fs.FS, dir, p string, jr jsonnetRun) ([]string, error) {
	info, err := fs.Stat(fsys, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil // dangling symlink: Argo CD skips it too
		}
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil
	}
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(data, []byte(skipMarker)) {
		return nil, nil
	}
	if strings.HasSuffix(p, ".jsonnet") {
		return jsonnetDocs(fsys, dir, p, jr)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if strings.HasSuffix(p, ".json") {
		doc, err := jsonManifest(data)
		if err != nil {
			return nil, err
		}
		return []string{doc}, nil
	}
	return yamlManifests(data)
}
