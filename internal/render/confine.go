package render

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// ErrOutsideRepo: a render asked for a file or directory outside the copy
// of the repository it works on (an absolute path, ../ past the root, a
// symbolic link leading out). The repository is a merge request's
// content: such a path would read the machine's files (/proc/self/environ
// holds the job's tokens) into the rendered output, or write over them.
var ErrOutsideRepo = errors.New("outside the repository")

// confinement is a directory on disk a render may use, and nothing else:
// every path is cleaned, made absolute and resolved through symbolic
// links (the part that exists) before it is compared with the root, so
// neither ../ nor a link can lead out.
type confinement struct {
	root string // absolute, links resolved

	mu      sync.Mutex
	refused error // the first path refused
}

// newConfinement confines to dir, which must exist.
func newConfinement(dir string) (*confinement, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	return &confinement{root: root}, nil
}

// check returns p resolved when it is the root or below it, else an error
// wrapping ErrOutsideRepo, which is also remembered (Refused): kustomize
// wraps the errors of its file system in its own words, or turns them
// into "does not exist", and the render must still fail with this one.
func (c *confinement) check(p string) (string, error) {
	r, ok := c.resolve(p)
	if ok {
		return r, nil
	}
	err := fmt.Errorf("%w: %s", ErrOutsideRepo, c.name(p))
	c.mu.Lock()
	if c.refused == nil {
		c.refused = err
	}
	c.mu.Unlock()
	return "", err
}

func (c *confinement) resolve(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.root, p)
	}
	p = filepath.Clean(p)
	if !c.inside(p) {
		return "", false
	}
	// Resolve the longest prefix that exists: a file about to be written
	// does not, and its directory may be a link.
	rest := ""
	for cur := p; ; {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			r := filepath.Join(real, rest)
			return r, c.inside(r)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", false
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", false
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func (c *confinement) inside(p string) bool {
	return p == c.root || strings.HasPrefix(p, c.root+string(filepath.Separator))
}

// name is how an error names p: below the root, relative to it (the
// repository's own path); else as kustomize or helm resolved it, which
// says where it pointed and holds nothing of the machine but that path.
func (c *confinement) name(p string) string {
	if p == "" {
		return `""`
	}
	if !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(c.root, filepath.Clean(p)); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return filepath.Clean(p)
}

// Refused is the first path refused, nil if none was.
func (c *confinement) Refused() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}

// confinedFS is the kustomize file system of a build on disk: the os's,
// for paths inside the confinement only, reads and writes alike. With
// --load-restrictor LoadRestrictionsNone kustomize itself checks nothing,
// and Argo CD's admins mean "anywhere in the repository" by it: here the
// repository is the staged copy.
type confinedFS struct {
	c    *confinement
	disk filesys.FileSystem
}

func (f confinedFS) Create(p string) (filesys.File, error) {
	r, err := f.c.check(p)
	if err != nil {
		return nil, err
	}
	return f.disk.Create(r)
}

func (f confinedFS) Mkdir(p string) error {
	r, err := f.c.check(p)
	if err != nil {
		return err
	}
	return f.disk.Mkdir(r)
}

func (f confinedFS) MkdirAll(p string) error {
	r, err := f.c.check(p)
	if err != nil {
		return err
	}
	return f.disk.MkdirAll(r)
}

func (f confinedFS) RemoveAll(p string) error {
	r, err := f.c.check(p)
	if err != nil {
		return err
	}
	return f.disk.RemoveAll(r)
}

func (f confinedFS) Open(p string) (filesys.File, error) {
	r, err := f.c.check(p)
	if err != nil {
		return nil, err
	}
	return f.disk.Open(r)
}

func (f confinedFS) IsDir(p string) bool {
	r, err := f.c.check(p)
	return err == nil && f.disk.IsDir(r)
}

func (f confinedFS) ReadDir(p string) ([]string, error) {
	r, err := f.c.check(p)
	if err != nil {
		return nil, err
	}
	return f.disk.ReadDir(r)
}

func (f confinedFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	if _, err := f.c.check(p); err != nil {
		return "", "", err
	}
	d, name, err := f.disk.CleanedAbs(p)
	if err != nil {
		return "", "", err
	}
	if _, err := f.c.check(string(d)); err != nil {
		return "", "", err
	}
	return d, name, nil
}

func (f confinedFS) Exists(p string) bool {
	r, err := f.c.check(p)
	return err == nil && f.disk.Exists(r)
}

// Glob matches below the root only: a pattern reaching out is refused
// whole, and a match is kept only when it resolves inside.
func (f confinedFS) Glob(pattern string) ([]string, error) {
	if _, err := f.c.check(pattern); err != nil {
		return nil, err
	}
	ms, err := f.disk.Glob(pattern)
	if err != nil {
		return nil, err
	}
	out := ms[:0]
	for _, m := range ms {
		if _, err := f.c.check(m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func (f confinedFS) ReadFile(p string) ([]byte, error) {
	r, err := f.c.check(p)
	if err != nil {
		return nil, err
	}
	return f.disk.ReadFile(r)
}

func (f confinedFS) WriteFile(p string, data []byte) error {
	r, err := f.c.check(p)
	if err != nil {
		return err
	}
	return f.disk.WriteFile(r, data)
}

// Walk does not follow links (filepath.Walk's rule); its root must be
// inside.
func (f confinedFS) Walk(p string, fn filepath.WalkFunc) error {
	r, err := f.c.check(p)
	if err != nil {
		return err
	}
	return f.disk.Walk(r, fn)
}
