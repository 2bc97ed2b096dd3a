package patch

import (
	"bytes"

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

// Find locates the scalar at keyPath (mapping keys) in the first document
// that has it. Aliases met on the way are followed (the target is then the
// anchored node, which Apply refuses to edit while aliases use it); an
// alias at the end of the path is returned as the target itself, so Apply
// replaces the alias rather than the value it points to. Keys that exist
// only through `<<` merge keys are not found.
func (f *File) Find(keyPath []string) (Target, error) {
	if len(keyPath) == 0 {
		return Target{}, errEmptyPath
	}
	return findIn(f.t, keyPath)
}

// FindAll is Find for several key paths: a promotion sets every field of
// every component in the versions file.
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

// HelmSources lists every Helm source of every document, wherever it is:
// spec.source, spec.sources[], spec.template.spec.source and
// spec.template.spec.sources[]. Documents that are not mappings or have no
// such sources are skipped; a file that does not parse is an error, and so
// is a chart, repoURL or targetRevision that is not a scalar, because a
// caller could not tell it apart from a missing key.
func (f *File) HelmSources() ([]HelmSource, error) { return f.t.helmSources() }

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

// Apply splices each change at its target's position and returns the new
// bytes; the file is not modified. Targets are looked up again in data by
// document, line and column, and must still hold the value they were found
// with. Apply refuses (ErrUnsupported) to edit block scalars, multi-line
// scalars and templated values, and verifies by re-parsing both old and new
// bytes that the only semantic difference is each target now reading as New
// (anything else, e.g. an anchored value whose aliases would change too, is
// ErrVerify). Changes whose New equals the current value are no-ops; two
// changes at the same position are an error.
func (f *File) Apply(changes []Change) ([]byte, error) {
	if len(changes) == 0 {
		return bytes.Clone(f.data), nil
	}
	return apply(f.data, f.t, changes)
}
