package argo

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// globFiles selects git files generator files as the ApplicationSet
// controller does with applicationsetcontroller.enable.new.git.file
// .globbing: each path is a doublestar glob (the library Argo CD uses:
// "*" stays within a segment, "**" crosses any number, {a,b}
// alternatives) joined to the repository root, so a leading "/" or "./"
// changes nothing and a pattern leading out of the root matches nothing.
// Excludes are matched the same way and removed. Argo CD reads every
// match as a file, so a pattern matching a directory is an error, an
// exclude pattern's included.
func globFiles(fsys fs.FS, inc, exc []string) ([]string, error) {
	set := map[string]bool{}
	for _, p := range inc {
		ms, err := globMatches(fsys, p)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			set[m] = true
		}
	}
	for _, p := range exc {
		ms, err := globMatches(fsys, p)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			delete(set, m)
		}
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	return out, nil
}

func globMatches(fsys fs.FS, pattern string) ([]string, error) {
	p := path.Clean("./" + pattern)
	if p == ".." || strings.HasPrefix(p, "../") {
		return nil, nil // outside the repository: Argo CD drops such matches
	}
	ms, err := doublestar.Glob(fsys, p)
	if err != nil {
		return nil, fmt.Errorf("git files generator: path %q: %w", pattern, err)
	}
	for _, m := range ms {
		if st, err := fs.Stat(fsys, m); err == nil && st.IsDir() {
			return nil, fmt.Errorf("git files generator: path %q matches the directory %s, which Argo CD fails to read as a file (new git file globbing)", pattern, m)
		}
	}
	return ms, nil
}
