package patch

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// File is a YAML file parsed once for several look-ups and one Apply: a
// promotion finds its targets in a file and then edits that same file, and
// parsing is most of what either costs. A File is read-only after Parse
// and safe for concurrent use.
type File struct {
	data []byte
	t    *tree
}

// Parse parses data (every document). data must not be modified while the
// File is in use.
func Parse(data []byte) (*File, error) {
	t, err := parse(data)
	if err != nil {
		return nil, err
	}
	return &File{data: data, t: t}, nil
}

// Bytes returns the file's content.
func (f *File) Bytes() []byte { return f.data }

// Find is the package-level Find on the parsed file.
func (f *File) Find(keyPath []string) (Target, error) {
	if len(keyPath) == 0 {
		return Target{}, errEmptyPath
	}
	return findIn(f.t, keyPath)
}

// FindAll is the package-level FindAll on the parsed file.
func (f *File) FindAll(keyPaths [][]string) ([]Target, error) {
	out := make([]Target, 0, len(keyPaths))
	for _, kp := range keyPaths {
		t, err := f.Find(kp)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// HelmSources is the package-level HelmSources on the parsed file.
func (f *File) HelmSources() ([]HelmSource, error) { return f.t.helmSources() }

// Docs is the number of documents in the file, as Target.Doc counts them.
func (f *File) Docs() int { return len(f.t.docs) }

// Roots returns the root node of each document as a yaml.v3 Decoder
// yields them (none for a file of comments only), for other readers of
// the same bytes (internal/argo): parsing is most of what either costs.
// The nodes are the File's own and shared: nobody may modify them.
func (f *File) Roots() []*yaml.Node {
	out := make([]*yaml.Node, 0, len(f.t.docs))
	for i, d := range f.t.docs {
		if f.t.docNode[i] != nil { // not the blank document of an empty file
			out = append(out, d)
		}
	}
	return out
}

// At returns the scalar value at a position the parser reports (document,
// line and character column, as in Target), for selectors that find
// nodes by other means (internal/patch/yqselect). Mapping keys are never
// targets; a position holding a mapping or sequence is ErrNotScalar.
func (f *File) At(doc, line, col int) (Target, error) {
	p := pos{doc, line, col}
	nodes := map[pos]*yaml.Node{p: nil}
	locateNodes(f.t.docs, nodes)
	n := nodes[p]
	if n == nil {
		return Target{}, fmt.Errorf("no value at document %d line %d column %d: %w", doc, line, col, ErrNotFound)
	}
	if r := resolve(n); r == nil || r.Kind != yaml.ScalarNode {
		return Target{}, fmt.Errorf("%s line %d: %w", f.t.pathOf(n), line, ErrNotScalar)
	}
	return f.t.newTarget(n, doc), nil
}

// Apply is the package-level Apply on the parsed file; the verification
// re-parses only the edited bytes.
func (f *File) Apply(changes []Change) ([]byte, error) {
	if len(changes) == 0 {
		return bytes.Clone(f.data), nil
	}
	return apply(f.data, f.t, changes)
}
