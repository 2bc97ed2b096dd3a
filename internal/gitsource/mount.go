package gitsource

import (
	"io/fs"
	"path"
	"strings"
)

// MountDir is the directory of a mounted FS where other repositories
// appear: MountDir/<key>/... is the tree of one of them.
const MountDir = ".argocd-repos"

// MountKey names the directory repoURL is mounted at, below MountDir.
func MountKey(repoURL string) string { return cacheKey(repoURL) }

// Mount returns base with each of repos (by MountKey) visible below
// MountDir. The mount directory is not listed in base's root, so a walk
// of the repository does not enter other repositories.
func Mount(base fs.FS, repos map[string]fs.FS) fs.FS {
	if len(repos) == 0 {
		return base
	}
	return &mountFS{base: base, repos: repos}
}

type mountFS struct {
	base  fs.FS
	repos map[string]fs.FS
}

// route returns the FS and path name refers to.
func (m *mountFS) route(name string) (fs.FS, string) {
	rest, ok := strings.CutPrefix(name, MountDir+"/")
	if !ok {
		return m.base, name
	}
	key, sub, _ := strings.Cut(rest, "/")
	if r, ok := m.repos[key]; ok {
		if sub == "" {
			sub = "."
		}
		return r, sub
	}
	return m.base, name
}

func (m *mountFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, p := m.route(path.Clean(name))
	return f.Open(p)
}

func (m *mountFS) ReadFile(name string) ([]byte, error) {
	f, p := m.route(path.Clean(name))
	return fs.ReadFile(f, p)
}

func (m *mountFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, p := m.route(path.Clean(name))
	return fs.ReadDir(f, p)
}

func (m *mountFS) Stat(name string) (fs.FileInfo, error) {
	f, p := m.route(path.Clean(name))
	return fs.Stat(f, p)
}

// ReadLink and Lstat make a mount an fs.ReadLinkFS when its trees are:
// Argo CD's out-of-bounds symlink rule reads the links of each
// repository (argo.CheckSymlinks).
func (m *mountFS) ReadLink(name string) (string, error) {
	f, p := m.route(path.Clean(name))
	return fs.ReadLink(f, p)
}

func (m *mountFS) Lstat(name string) (fs.FileInfo, error) {
	f, p := m.route(path.Clean(name))
	return fs.Lstat(f, p)
}
