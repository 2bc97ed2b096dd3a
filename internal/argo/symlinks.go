package argo

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"reflect"
	"strings"
	"sync"
)

// ErrOutOfBoundsSymlink: the repository holds a symbolic link that is
// absolute or leads out of the repository. Argo CD's repo-server
// generates no manifest at all from such a repository (unless started
// with --allow-oob-symlinks): it walks the whole checkout (.git aside)
// before every manifest generation, for every kind of source, and for
// every repository a `$ref` value file reads. The app fails with
// "repository contains out-of-bounds symlinks. file: <path>", the path
// relative to the repository's root.
var ErrOutOfBoundsSymlink = errors.New("repository contains out-of-bounds symlinks")

// SymlinkError names the first such link found, relative to the
// repository's root.
type SymlinkError struct{ File string }

func (e *SymlinkError) Error() string        { return ErrOutOfBoundsSymlink.Error() + ". file: " + e.File }
func (e *SymlinkError) Is(target error) bool { return target == ErrOutOfBoundsSymlink }

// CheckSymlinks walks the repository whose root is dir of fsys and
// returns a *SymlinkError for the first link (in lexical order) that is
// absolute or whose target, followed element by element from the link's
// directory, ever leaves dir: Argo CD's rule, in which "a/../../repo/x"
// is out of bounds even though it ends inside. Links are not followed
// (one pointing at another is checked on its own), and a dangling link
// inside the repository is fine. fsys must implement fs.ReadLinkFS for
// a link to be read.
func CheckSymlinks(fsys fs.FS, dir string) error {
	return fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("walking %s for symlinks: %w", dir, err)
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		if dir == "." {
			rel = p
		}
		target, err := fs.ReadLink(fsys, p)
		if err != nil {
			return fmt.Errorf("reading link %s: %w", rel, err)
		}
		if path.IsAbs(target) || leaves(path.Dir(rel), target) {
			return &SymlinkError{File: rel}
		}
		return nil
	})
}

// leaves reports whether target, taken from from (a directory relative
// to the repository's root), steps out of the root at any element.
func leaves(from, target string) bool {
	cur := from
	for _, part := range strings.Split(target, "/") {
		cur = path.Join(cur, part)
		if cur == ".." || strings.HasPrefix(cur, "../") {
			return true
		}
	}
	return false
}

// symlinkChecks remembers the outcome of CheckSymlinks per tree and root:
// every source of every app asks it for the same repositories, and
// Argo CD caches it per revision too. Bounded, since a long-lived
// process sees many trees.
var symlinkChecks = struct {
	sync.Mutex
	m map[symlinkKey]func() error
}{m: map[symlinkKey]func() error{}}

type symlinkKey struct {
	fsys fs.FS
	dir  string
}

const maxSymlinkChecks = 256

// checkSymlinksOnce is CheckSymlinks, done once per tree and root when
// the tree is a pointer (views of a commit, mounts of repositories are).
func checkSymlinksOnce(fsys fs.FS, dir string) error {
	if fsys == nil {
		return nil
	}
	if reflect.TypeOf(fsys).Kind() != reflect.Pointer {
		return CheckSymlinks(fsys, dir) // a map, a struct of interfaces: no safe key
	}
	k := symlinkKey{fsys, dir}
	symlinkChecks.Lock()
	check, ok := symlinkChecks.m[k]
	if !ok {
		if len(symlinkChecks.m) >= maxSymlinkChecks {
			clear(symlinkChecks.m)
		}
		check = sync.OnceValue(func() error { return CheckSymlinks(fsys, dir) })
		symlinkChecks.m[k] = check
	}
	symlinkChecks.Unlock()
	return check()
}

// checkSourceSymlinks applies the rule to the repositories Argo CD checks
// out to render req: the source's own (a path source) and each one a
// value file or file parameter is read from (a `$ref`, or the chart's
// repository). A chart of a chart repository is an archive, read in
// memory: its links lead nowhere.
func checkSourceSymlinks(req *Request, src Source, opt ResolveOptions) error {
	type root struct{ dir, repo string }
	var roots []root
	seen := map[string]bool{}
	add := func(dir, repo string) {
		if !seen[dir] {
			seen[dir] = true
			roots = append(roots, root{dir, repo})
		}
	}
	// mountOf is the root of the repository p (a path of opt.FS) is in.
	mountOf := func(p string) (string, string) {
		for key, dir := range opt.Repos {
			if p == dir || strings.HasPrefix(p, dir+"/") {
				return dir, key
			}
		}
		return ".", ""
	}
	if src.Chart == "" {
		add(mountOf(req.Path))
	}
	if h := req.Helm; h != nil {
		files := append([]ValueFile(nil), h.ValueFiles...)
		for _, fp := range h.FileParameters {
			files = append(files, fp.File)
		}
		for _, vf := range files {
			if vf.InRepo {
				add(mountOf(vf.Path))
			}
		}
	}
	for _, r := range roots {
		if err := checkSymlinksOnce(opt.FS, r.dir); err != nil {
			if r.repo != "" {
				return fmt.Errorf("repository %s: %w", withoutUserinfo(r.repo), err)
			}
			return err
		}
	}
	return nil
}

// withoutUserinfo names a repository in an error without a credential
// its URL may carry.
func withoutUserinfo(repo string) string {
	u, err := url.Parse(repo)
	if err != nil || u.Host == "" {
		if at := strings.LastIndex(repo, "@"); at >= 0 && strings.Contains(repo, "://") {
			return "(a repository URL with userinfo)"
		}
		return repo
	}
	u.User = nil
	return u.String()
}
