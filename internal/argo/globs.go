package argo

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// ErrGlobNoMatch marks a value file pattern that matched no file while
// missing value files are not ignored; Argo CD fails such a render too.
var ErrGlobNoMatch = errors.New("matched no files")

// IsGlob reports whether a value file path is a pattern, by Argo CD's
// test: it holds "*", "?" or "[".
func IsGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// ExpandValueFiles applies the value file rules that need the files, as
// Argo CD's repo-server does: a pattern expands to its matches in the
// order doublestar walks them (a directory's own entries in lexical order
// before its subdirectories'), skipping files the list also names
// explicitly, whose place is theirs; a file listed twice is used at its
// first place; a missing optional file is dropped, a pattern matching
// nothing is an error wrapping ErrGlobNoMatch unless optional. A missing
// mandatory file is kept: reading it fails the render.
//
// repo holds InRepo files, chart the chart's; with chart nil, chart
// files are passed through unexpanded.
func ExpandValueFiles(vfs []ValueFile, repo, chart fs.FS) ([]ValueFile, error) {
	type key struct {
		inRepo bool
		path   string
	}
	explicit := map[key]bool{}
	for _, vf := range vfs {
		if !IsGlob(vf.Path) {
			explicit[key{vf.InRepo, vf.Path}] = true
		}
	}
	seen := map[key]bool{}
	var out []ValueFile
	add := func(vf ValueFile) {
		if k := (key{vf.InRepo, vf.Path}); !seen[k] {
			seen[k] = true
			out = append(out, vf)
		}
	}
	for _, vf := range vfs {
		fsys := repo
		if !vf.InRepo {
			fsys = chart
		}
		if fsys == nil || vf.Remote {
			add(vf) // a URL is never a pattern, nor checked for presence
			continue
		}
		if !IsGlob(vf.Path) {
			// only an optional file is looked up: any other is read
			// (or fails) where it is used, and this runs for every
			// value file of every app planned
			if vf.Optional {
				if _, err := fs.Stat(fsys, vf.Path); errors.Is(err, fs.ErrNotExist) {
					continue
				}
			}
			add(vf)
			continue
		}
		matches, err := Glob(fsys, vf.Path)
		if err != nil {
			return nil, fmt.Errorf("value file pattern %q: %w", vf.Path, err)
		}
		if len(matches) == 0 {
			if vf.Optional {
				continue
			}
			return nil, fmt.Errorf("value file pattern %q: %w", vf.Path, ErrGlobNoMatch)
		}
		for _, m := range matches {
			if !explicit[key{vf.InRepo, m}] {
				add(ValueFile{Path: m, InRepo: vf.InRepo, Optional: vf.Optional})
			}
		}
	}
	return out, nil
}

// Glob matches a slash pattern against fsys like doublestar, which Argo
// CD uses for value files: "*", "?", "[...]" and "{a,b}" within one path
// segment, "**" for any number of directories. Hidden files match too.
func Glob(fsys fs.FS, pattern string) ([]string, error) {
	segs := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	for _, s := range segs {
		if s == "**" {
			continue
		}
		for _, alt := range braces(s) {
			if _, err := path.Match(alt, ""); err != nil {
				return nil, fmt.Errorf("bad pattern %q", pattern)
			}
		}
	}
	var out []string
	err := globIn(fsys, ".", segs, &out, 0)
	return out, err
}

// maxGlobDepth bounds "**" recursion through directory symlink loops.
const maxGlobDepth = 64

func globIn(fsys fs.FS, dir string, segs []string, out *[]string, depth int) error {
	if depth > maxGlobDepth {
		return fmt.Errorf("directories nest deeper than %d", maxGlobDepth)
	}
	if len(segs) == 0 {
		*out = append(*out, dir)
		return nil
	}
	seg, rest := segs[0], segs[1:]
	if seg == "**" {
		if err := globIn(fsys, dir, rest, out, depth); err != nil {
			return err
		}
		return eachDir(fsys, dir, func(sub string) error { return globIn(fsys, sub, segs, out, depth+1) })
	}
	if !IsGlob(seg) && !strings.Contains(seg, "{") {
		p := path.Join(dir, seg)
		st, err := fs.Stat(fsys, p)
		if err != nil {
			return nil
		}
		if len(rest) > 0 && !st.IsDir() {
			return nil
		}
		return globIn(fsys, p, rest, out, depth)
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil // not a directory, or gone: no matches, as doublestar
	}
	alts := braces(seg)
	for _, e := range entries {
		if !matchAnyPattern(alts, e.Name()) {
			continue
		}
		p := path.Join(dir, e.Name())
		if len(rest) > 0 {
			if st, err := fs.Stat(fsys, p); err != nil || !st.IsDir() {
				continue
			}
		}
		if err := globIn(fsys, p, rest, out, depth); err != nil {
			return err
		}
	}
	return nil
}

func eachDir(fsys fs.FS, dir string, fn func(string) error) error {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		if st, err := fs.Stat(fsys, p); err == nil && st.IsDir() {
			if err := fn(p); err != nil {
				return err
			}
		}
	}
	return nil
}

func matchAnyPattern(pats []string, name string) bool {
	for _, p := range pats {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// braces expands "{a,b}" alternatives (nested ones too) in one segment.
func braces(s string) []string {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		return []string{s}
	}
	depth := 0
	var parts []string
	last := open + 1
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				parts = append(parts, s[last:i])
				var out []string
				for _, p := range parts {
					out = append(out, braces(s[:open]+p+s[i+1:])...)
				}
				return out
			}
		case ',':
			if depth == 1 {
				parts = append(parts, s[last:i])
				last = i + 1
			}
		}
	}
	return []string{s} // unbalanced: literal
}
