// Package git reads and writes the GitOps repository for gitops-promote.
//
// The hot path of a promotion (read files at a commit, write new blobs,
// trees and one commit, move HEAD, update the work tree) never runs a
// work-tree status scan: go-git's Status, Add and Commit take up to a second
// on a 20,000-file repository, while writing objects straight into the
// object store takes milliseconds. Ref and index updates use lock files and
// rename, as git does, so a killed process never leaves a half-written ref
// or index behind. Network operations (Push, Fetch) return errors scrubbed
// of credentials.
package git

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// Sentinel errors callers branch on.
var (
	// ErrNotRepo means the directory is not inside a git work tree.
	ErrNotRepo = errors.New("not a git repository")
	// ErrRejected means the remote refused a push because the branch moved
	// (non-fast-forward, stale info, lost race); fetch, rebuild and retry.
	ErrRejected = errors.New("push rejected: remote branch moved")
	// ErrRefMoved means a local ref no longer points where the caller
	// expected (compare-and-swap failed).
	ErrRefMoved = errors.New("ref moved")
	// ErrNoChanges means CommitFiles would produce the parent's tree.
	ErrNoChanges = errors.New("no changes to commit")
	// ErrNoIdentity means no author or committer name/email is configured.
	ErrNoIdentity = errors.New("no git identity configured")
	// ErrNoMergeBase means two commits share no history.
	ErrNoMergeBase = errors.New("no merge base")
)

// Repo is a git repository with a work tree.
type Repo struct {
	repo      *gogit.Repository
	storage   *filesystem.Storage
	root      string     // work tree root
	gitDir    string     // .git dir, or worktrees/<name> for linked work trees
	commonDir string     // where refs, objects and packed-refs live
	fsync     bool       // sync refs and work-tree files before renaming them
	mu        sync.Mutex // serialises go-git object reads of tree views and history walks (objects.go)

	cfgOnce sync.Once // the merged git config, for Identity
	cfg     *formatcfg.Config
	cfgErr  error
	// subjects of the commits this Repo wrote, for their reflog lines:
	// reading a commit back from a new pack reloads every pack index.
	subjects sync.Map // plumbing.Hash -> string

	// trees caches decoded trees (plumbing.Hash -> *gitTree) for every
	// tree view: each look-up walks from the root, globbing an env's
	// manifests looks up hundreds of paths through the same few trees,
	// and two revisions share most of theirs. Written once per tree,
	// then only read, as sync.Map suits.
	trees sync.Map
}

// Open opens the repository whose work tree contains dir, looking for .git
// in dir and its parents.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("opening repository %s: %w", dir, err)
	}
	root, gitDir, err := findGitDir(abs)
	if err != nil {
		return nil, err
	}
	commonDir := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		commonDir = resolveFrom(gitDir, strings.TrimSpace(string(b)))
	}
	// Keeping pack descriptors open matters: by default go-git reopens the
	// packfile for every object it reads (61 opens for one promotion).
	var dot billy.Filesystem = osfs.New(gitDir)
	if commonDir != gitDir {
		dot = dotgit.NewRepositoryFilesystem(dot, osfs.New(commonDir))
	}
	dot = newIdxFS(dot)
	st := filesystem.NewStorageWithOptions(dot, cache.NewObjectLRUDefault(), filesystem.Options{MaxOpenDescriptors: 16})
	r := &Repo{storage: st, root: root, gitDir: gitDir, commonDir: commonDir}
	repo, err := gogit.Open(refStorage{Storage: st, r: r}, osfs.New(root))
	if err != nil {
		return nil, fmt.Errorf("opening repository %s: %w", root, err)
	}
	r.repo, r.fsync = repo, wantsFsync(repo)
	return r, nil
}

// Close releases the packfile descriptors the repository keeps open.
func (r *Repo) Close() error { return r.storage.Close() }

// wantsFsync follows git: by default git (2.39) syncs neither refs nor
// work-tree files, relying on rename for atomicity, which is what a killed
// process needs. A repository that sets core.fsync (other than "none") or
// core.fsyncObjectFiles asks for durability across power loss too.
func wantsFsync(repo *gogit.Repository) bool {
	cfg, err := repo.Config()
	if err != nil || cfg.Raw == nil {
		return false
	}
	core := cfg.Raw.Section("core")
	if v := strings.TrimSpace(core.Option("fsync")); v != "" && v != "none" {
		return true
	}
	return strings.EqualFold(core.Option("fsyncObjectFiles"), "true")
}

// findGitDir walks up from dir to the first directory holding .git, which
// is either a directory or a "gitdir: <path>" file (linked work trees,
// submodules).
func findGitDir(dir string) (root, gitDir string, err error) {
	for d := dir; ; {
		dotGit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotGit)
		switch {
		case err == nil && fi.IsDir():
			return d, dotGit, nil
		case err == nil:
			b, err := os.ReadFile(dotGit)
			if err != nil {
				return "", "", fmt.Errorf("reading %s: %w", dotGit, err)
			}
			target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return "", "", fmt.Errorf("%s: malformed .git file: %w", d, ErrNotRepo)
			}
			return d, resolveFrom(d, strings.TrimSpace(target)), nil
		case !errors.Is(err, os.ErrNotExist):
			return "", "", fmt.Errorf("looking for .git in %s: %w", d, err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", fmt.Errorf("%s: %w", dir, ErrNotRepo)
		}
		d = parent
	}
}

func resolveFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// Root returns the work tree root.
func (r *Repo) Root() string { return r.root }

// Head is where HEAD points.
type Head struct {
	Hash plumbing.Hash
	// Branch is the short branch name, "" when HEAD is detached (as in
	// GitLab CI).
	Branch string
}

// Head reads HEAD.
func (r *Repo) Head() (Head, error) {
	ref, err := r.repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return Head{}, fmt.Errorf("reading HEAD: %w", err)
	}
	if ref.Type() == plumbing.HashReference {
		return Head{Hash: ref.Hash()}, nil
	}
	target, err := r.repo.Reference(ref.Target(), true)
	if err != nil {
		return Head{}, fmt.Errorf("reading HEAD (%s): %w", ref.Target(), err)
	}
	return Head{Hash: target.Hash(), Branch: ref.Target().Short()}, nil
}

// Resolve turns a revision ("HEAD", "HEAD~1", a branch, tag, "origin/main",
// a full or short hash) into a commit hash.
func (r *Repo) Resolve(rev string) (plumbing.Hash, error) {
	h, err := r.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolving %q: %w", rev, err)
	}
	return *h, nil
}

// MergeBase returns a best common ancestor of a and b.
func (r *Repo) MergeBase(a, b plumbing.Hash) (plumbing.Hash, error) {
	ca, cb, err := r.commitPair(a, b)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if len(bases) == 0 {
		return plumbing.ZeroHash, fmt.Errorf("%s and %s: %w", a, b, ErrNoMergeBase)
	}
	return bases[0].Hash, nil
}

// IsAncestor reports whether a is an ancestor of b (or equal to it).
func (r *Repo) IsAncestor(a, b plumbing.Hash) (bool, error) {
	ca, cb, err := r.commitPair(a, b)
	if err != nil {
		return false, err
	}
	ok, err := ca.IsAncestor(cb)
	if err != nil {
		return false, fmt.Errorf("is %s an ancestor of %s: %w", a, b, err)
	}
	return ok, nil
}

func (r *Repo) commitPair(a, b plumbing.Hash) (*object.Commit, *object.Commit, error) {
	ca, err := r.commit(a)
	if err != nil {
		return nil, nil, err
	}
	cb, err := r.commit(b)
	if err != nil {
		return nil, nil, err
	}
	return ca, cb, nil
}

func (r *Repo) commit(h plumbing.Hash) (*object.Commit, error) {
	c, err := r.repo.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", h, err)
	}
	return c, nil
}
