package git

import "io/fs"

// go-git's object storage is not safe for concurrent use (its open
// packfiles live in unguarded maps), and manifestdiff reads one tree from
// many render goroutines. Every entry point of a tree view therefore holds
// the repository's lock; blobs are read whole, so no reader touches the
// store after the lock is released.

func (t *treeFS) Open(name string) (fs.File, error) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.openNoLock(name)
}

func (t *treeFS) ReadFile(name string) ([]byte, error) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.readFileNoLock(name)
}

func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.readDirNoLock(name)
}

func (t *treeFS) Stat(name string) (fs.FileInfo, error) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.statNoLock(name)
}

func (t *treeFS) Lstat(name string) (fs.FileInfo, error) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.lstatNoLock(name)
}

func (t *treeFS) ReadLink(name string) (string, error) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.readLinkNoLock(name)
}
