package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/api/types"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// addComponents is Argo CD's components step: with
// ignoreMissingComponents, the components that do not exist in the
// repository are dropped first; the rest go to `kustomize edit add
// component`, which expands globs from the kustomization's directory and
// appends each match not listed yet.
func (e *kustEditor) addComponents(components []string, ignoreMissing bool) {
	if ignoreMissing {
		var found []string
		for _, c := range components {
			if p, ok := repoPath(e.dir, c); ok {
				if _, err := fs.Stat(e.fsys, p); err == nil {
					found = append(found, c)
				}
			}
		}
		if components = found; len(components) == 0 {
			return
		}
	}
	fail := func(err error) { e.err = fmt.Errorf("kustomize edit add component in %s: %w", e.dir, err) }
	args, err := cliArgs(components)
	if err != nil {
		fail(err)
		return
	}
	var matched []string
	for _, pattern := range args {
		m, err := e.glob(pattern)
		if err != nil {
			fail(err)
			return
		}
		if len(m) == 0 {
			if remote(pattern) {
				fail(fmt.Errorf("remote component %s: %w", scrub.URL(pattern), ErrOffline))
			} else {
				fail(fmt.Errorf("%s has no match", pattern))
			}
			return
		}
		matched = append(matched, m...)
	}
	e.edit("add component", func(k *types.Kustomization) error {
		for _, c := range matched {
			if c != e.name && !slices.Contains(k.Components, c) {
				k.Components = append(k.Components, c)
			}
		}
		return nil
	})
}

// cliArgs drops a "--" and refuses what the CLI would take for a flag;
// no argument left is the CLI's own error.
func cliArgs(args []string) ([]string, error) {
	var out []string
	for i, a := range args {
		if a == "--" {
			out = append(out, args[i+1:]...)
			break
		}
		if err := noFlags([]string{a}); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("must specify a component file")
	}
	return out, nil
}

// glob is filepath.Glob run from dir, as the CLI runs in the
// kustomization's directory: a pattern without metacharacters matches
// itself if it exists; matches come back relative to dir.
func (e *kustEditor) glob(pattern string) ([]string, error) {
	p, ok := repoPath(e.dir, pattern)
	if !ok || path.IsAbs(pattern) {
		return nil, nil // outside the checkout: nothing there to match
	}
	if !strings.ContainsAny(pattern, `*?[\`) {
		if _, err := fs.Stat(e.fsys, p); err != nil {
			return nil, nil
		}
		return []string{pattern}, nil
	}
	matches, err := fs.Glob(e.fsys, p)
	if err != nil {
		return nil, fmt.Errorf("error checking the filesystem: %w", err)
	}
	for i, m := range matches {
		rel, err := filepath.Rel(e.dir, m)
		if err != nil {
			return nil, err
		}
		matches[i] = filepath.ToSlash(rel)
	}
	return matches, nil
}

// repoPath joins rel onto dir (a leading "/" included, as Argo CD's
// filepath.Join onto the source path does) and reports whether the result
// stays in the repository.
func repoPath(dir, rel string) (string, bool) {
	p := path.Join(dir, rel)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// overlayFS is fsys with one file's content replaced: the edited
// kustomization, so the tree itself is never written.
type overlayFS struct {
	fs.FS
	name string
	data []byte
}

func (o overlayFS) Open(name string) (fs.File, error) {
	if name != o.name {
		return o.FS.Open(name)
	}
	return &memFile{name: path.Base(name), Reader: bytes.NewReader(o.data), size: int64(len(o.data))}, nil
}

func (o overlayFS) ReadFile(name string) ([]byte, error) {
	if name != o.name {
		return fs.ReadFile(o.FS, name)
	}
	return bytes.Clone(o.data), nil
}

func (o overlayFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(o.FS, name) }

type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f, nil }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Name() string               { return f.name }
func (f *memFile) Size() int64                { return f.size }
func (f *memFile) Mode() fs.FileMode          { return 0o644 }
func (f *memFile) ModTime() time.Time         { return time.Time{} }
func (f *memFile) IsDir() bool                { return false }
func (f *memFile) Sys() any                   { return nil }

var _ io.ReaderAt = (*memFile)(nil)
