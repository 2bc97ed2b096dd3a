package patch

import (
	"bytes"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
)

// File is a YAML file parsed once for several look-ups and one Apply: a
// promotion finds its targets in a file and then edits that same file, and
// parsing is most of what either costs. A File is read-only after Parse
// and safe for concurrent use.
type File struct {
	data []byte
	docs []*yqlib.CandidateNode
}

// Parse parses data (every document). data must not be modified while the
// File is in use.
func Parse(data []byte) (*File, error) {
	docs, err := parse(data)
	if err != nil {
		return nil, err
	}
	return &File{data: data, docs: docs}, nil
}

// Bytes returns the file's content.
func (f *File) Bytes() []byte { return f.data }

// Find is the package-level Find on the parsed file.
func (f *File) Find(keyPath []string) (Target, error) {
	if len(keyPath) == 0 {
		return Target{}, errEmptyPath
	}
	return findIn(f.docs, keyPath)
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
func (f *File) HelmSources() ([]HelmSource, error) { return helmSources(f.docs) }

// Apply is the package-level Apply on the parsed file; the verification
// re-parses only the edited bytes.
func (f *File) Apply(changes []Change) ([]byte, error) {
	if len(changes) == 0 {
		return bytes.Clone(f.data), nil
	}
	return apply(f.data, f.docs, changes)
}
