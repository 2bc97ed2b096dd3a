// Package gitsource brings the trees of other git repositories that Argo
// CD applications read (a Helm chart or manifests at a path of another
// repository, a `$ref` value file source, ...) at the revision Argo CD
// would check out, with go-git only: no git binary is needed.
//
// Each repository is fetched into a cache directory keyed by its URL, as
// shallow as the revision allows (a branch or tag at depth 1; a commit by
// its hash when the server allows it, else everything), and reused across
// runs: a commit SHA already in the cache needs no network. A branch, tag
// or version range is resolved against the remote's refs as the
// repo-server resolves it, once per run, so both sides of a diff read the
// same commit. Credentials come from the environment and the git
// ecosystem's files (see Credentials), each only for its own host, and
// never appear in errors.
package gitsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// ErrUnreachable marks a repository that could not be listed or fetched.
var ErrUnreachable = errors.New("repository unreachable")

// Bounds on one network operation, so that a server that stops answering
// cannot hang a run: listing refs is one round trip, a fetch moves a pack.
const (
	defaultListTimeout  = 2 * time.Minute
	defaultFetchTimeout = 15 * time.Minute
)

// Fetcher opens other repositories at a revision. It is safe for
// concurrent use.
type Fetcher struct {
	// ListTimeout and FetchTimeout bound listing a remote's refs and one
	// fetch; zero means 2 and 15 minutes.
	ListTimeout, FetchTimeout time.Duration
	// LocalRepos are the file:// URLs (prefixes) a source may name, from
	// the trusted configuration; any other local repository is
	// ErrLocalRepo. Set before the first Open.
	LocalRepos []string

	dir   string
	creds Credentials

	mu       sync.Mutex
	repos    map[string]*cached // by cache key
	resolved map[string]result  // "url\x00revision\x00prefix" -> commit, for the run
}

type cached struct {
	mu   sync.Mutex
	dir  string
	url  string
	repo *git.Repo // reopened after each fetch: new packs are read at open
}

type result struct {
	commit string
	err    error
}

// New returns a Fetcher caching repositories under dir.
func New(dir string, creds Credentials) (*Fetcher, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating git cache %s: %w", dir, err)
	}
	return &Fetcher{dir: dir, creds: creds, repos: map[string]*cached{}, resolved: map[string]result{}}, nil
}

// Open returns the tree of repoURL at revision and the commit it resolved
// to. revision is what an Application's targetRevision says: a commit
// SHA, a branch, a tag, "HEAD" or "" (the default branch), or a semver
// range over the tags (only those starting with tagPrefix, if set).
func (f *Fetcher) Open(ctx context.Context, repoURL, revision, tagPrefix string) (fs.FS, string, error) {
	return f.open(ctx, repoURL, revision, tagPrefix, false)
}

// OpenRef is Open for a git ref as `git fetch URL REF` takes it (a
// kustomize remote base's ?ref=): no version ranges.
func (f *Fetcher) OpenRef(ctx context.Context, repoURL, ref string) (fs.FS, string, error) {
	return f.open(ctx, repoURL, ref, "", true)
}

func (f *Fetcher) open(ctx context.Context, repoURL, revision, tagPrefix string, literal bool) (fs.FS, string, error) {
	if err := checkLocal(repoURL, f.LocalRepos); err != nil {
		return nil, "", err
	}
	c, err := f.repo(repoURL)
	if err != nil {
		return nil, "", err
	}
	if literal {
		tagPrefix = literalRef
	}
	commit, err := f.resolve(ctx, c, revision, tagPrefix)
	if err != nil {
		return nil, "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	tree, err := c.repo.TreeFS(plumbing.NewHash(commit))
	if err != nil {
		return nil, "", fmt.Errorf("%s at %s: %w", Redact(repoURL), commit, err)
	}
	return tree, commit, nil
}

// repo returns the cache entry of repoURL, creating the repository.
func (f *Fetcher) repo(repoURL string) (*cached, error) {
	key := cacheKey(repoURL)
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.repos[key]; ok {
		return c, nil
	}
	dir := filepath.Join(f.dir, key)
	if _, err := os.Stat(filepath.Join(dir, ".git")); errors.Is(err, fs.ErrNotExist) {
		if err := initRepo(dir, repoURL); err != nil {
			return nil, err
		}
	}
	r, err := git.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the cache of %s: %w", Redact(repoURL), err)
	}
	c := &cached{dir: dir, url: repoURL, repo: r}
	f.repos[key] = c
	return c, nil
}

// initRepo creates an empty repository whose origin is repoURL without
// any credentials, through a temporary directory so that a killed run
// never leaves half of one behind.
func initRepo(dir, repoURL string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".init-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	r, err := gogit.PlainInit(tmp, false)
	if err != nil {
		return fmt.Errorf("creating the cache of %s: %w", Redact(repoURL), err)
	}
	if _, err := r.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{stripUserinfo(repoURL)}}); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, fs.ErrExist) && !os.IsExist(err) {
		if _, statErr := os.Stat(filepath.Join(dir, ".git")); statErr != nil {
			return err
		}
	}
	return nil
}

// cacheKey names a repository's cache directory: the same repository
// written differently (case, trailing .git or /) shares one.
func cacheKey(repoURL string) string {
	u := strings.ToLower(strings.TrimSpace(stripUserinfo(repoURL)))
	u = strings.TrimSuffix(strings.TrimRight(u, "/"), ".git")
	sum := sha256.Sum256([]byte(u))
	return hex.EncodeToString(sum[:8])
}

// resolve returns the commit of revision, fetching what is missing.
// Resolutions of one repository are serialised (c.mu), so concurrent
// renders asking for the same revision list and fetch once.
func (f *Fetcher) resolve(ctx context.Context, c *cached, revision, tagPrefix string) (string, error) {
	memo := c.url + "\x00" + revision + "\x00" + tagPrefix
	c.mu.Lock()
	defer c.mu.Unlock()
	f.mu.Lock()
	r, ok := f.resolved[memo]
	f.mu.Unlock()
	if ok {
		return r.commit, r.err
	}
	commit, err := f.resolveLocked(ctx, c, revision, tagPrefix)
	f.mu.Lock()
	f.resolved[memo] = result{commit, err}
	f.mu.Unlock()
	return commit, err
}

func (f *Fetcher) resolveLocked(ctx context.Context, c *cached, revision, tagPrefix string) (string, error) {
	if isCommitSHA(revision) {
		h := plumbing.NewHash(strings.ToLower(revision))
		if c.has(h) {
			return h.String(), nil // offline: the commit is cached
		}
		if err := f.fetch(ctx, c, []config.RefSpec{config.RefSpec(h.String() + ":refs/gitsource/" + h.String())}, 1); err == nil && c.has(h) {
			return h.String(), nil
		}
		// The server does not serve commits by hash (protocol v0 without
		// uploadpack.allowReachableSHA1InWant): fetch everything.
		if err := f.fetch(ctx, c, allRefs, 0); err != nil {
			return "", err
		}
		if c.has(h) {
			return h.String(), nil
		}
		return "", fmt.Errorf("%s: commit %s not found", Redact(c.url), revision)
	}
	refs, err := f.list(ctx, c)
	if err != nil {
		return "", err
	}
	ref, err := pickRef(refs, revision, tagPrefix)
	if err != nil {
		if isTruncatedSHA(revision) {
			return f.byPrefix(ctx, c, revision)
		}
		return "", fmt.Errorf("%s: %w", Redact(c.url), err)
	}
	if !c.has(ref.hash) {
		spec := config.RefSpec("+" + ref.name + ":refs/gitsource/" + strings.TrimPrefix(ref.name, "refs/"))
		if err := f.fetch(ctx, c, []config.RefSpec{spec}, 1); err != nil {
			return "", err
		}
	}
	commit, err := c.peel(ref.hash)
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", Redact(c.url), ref.name, err)
	}
	return commit.String(), nil
}

var allRefs = []config.RefSpec{"+refs/heads/*:refs/gitsource/heads/*", "+refs/tags/*:refs/gitsource/tags/*"}

// byPrefix resolves a truncated commit SHA, which needs the whole history.
func (f *Fetcher) byPrefix(ctx context.Context, c *cached, prefix string) (string, error) {
	if err := f.fetch(ctx, c, allRefs, 0); err != nil {
		return "", err
	}
	h, err := c.repo.Resolve(prefix)
	if err != nil {
		return "", fmt.Errorf("%s: unable to resolve '%s' to a commit SHA: %w", Redact(c.url), prefix, err)
	}
	return h.String(), nil
}

// fetch runs one fetch from origin and reopens the repository so that
// the new objects are visible.
func (f *Fetcher) fetch(ctx context.Context, c *cached, specs []config.RefSpec, depth int) error {
	r, err := gogit.PlainOpen(c.dir)
	if err != nil {
		return err
	}
	auth, secrets, err := f.creds.auth(c.url)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, orDefault(f.FetchTimeout, defaultFetchTimeout))
	defer cancel()
	err = r.FetchContext(ctx, &gogit.FetchOptions{RemoteName: "origin", RefSpecs: specs, Depth: depth, Auth: auth, Tags: gogit.NoTags})
	if err != nil && !errors.Is(err, gogit.NoErrAlreadyUpToDate) {
		return unreachable(c.url, "fetching", err, secrets)
	}
	// The previous handle stays open: trees opened from it may still be
	// read by renders running concurrently.
	c.repo, err = git.Open(c.dir)
	return err
}

// list returns the remote's refs (ls-remote).
func (f *Fetcher) list(ctx context.Context, c *cached) ([]remoteRef, error) {
	auth, secrets, err := f.creds.auth(c.url)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, orDefault(f.ListTimeout, defaultListTimeout))
	defer cancel()
	rem := gogit.NewRemote(nil, &config.RemoteConfig{Name: "origin", URLs: []string{stripUserinfo(c.url)}})
	refs, err := rem.ListContext(ctx, &gogit.ListOptions{Auth: auth})
	if err != nil {
		return nil, unreachable(c.url, "listing refs of", err, secrets)
	}
	out := make([]remoteRef, 0, len(refs))
	for _, r := range refs {
		out = append(out, remoteRef{name: r.Name().String(), hash: r.Hash(), target: r.Target().String(), symbolic: r.Type() == plumbing.SymbolicReference})
	}
	return out, nil
}

// has reports whether the commit (or tag) h is in the cache.
func (c *cached) has(h plumbing.Hash) bool {
	r, err := gogit.PlainOpen(c.dir)
	if err != nil {
		return false
	}
	_, err = r.Object(plumbing.AnyObject, h)
	return err == nil
}

// peel returns the commit a ref's object (a commit or annotated tag) is.
func (c *cached) peel(h plumbing.Hash) (plumbing.Hash, error) {
	r, err := gogit.PlainOpen(c.dir)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	for range 10 {
		o, err := r.Object(plumbing.AnyObject, h)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		switch t := o.(type) {
		case *object.Commit:
			return t.Hash, nil
		case *object.Tag:
			h = t.Target
		default:
			return plumbing.ZeroHash, fmt.Errorf("%s is a %s, not a commit", h, o.Type())
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("%s: tags nest too deep", h)
}

// unreachable words a network error as one line naming the host, with
// every credential masked in every form (go-git puts the body of a 401,
// 403 or 404 in its error, and servers echo the Authorization header).
func unreachable(repoURL, what string, err error, secrets *scrub.Set) error {
	msg := fmt.Sprintf("%s %s: %v", what, Redact(repoURL), err)
	msg = secrets.Text(strings.Join(strings.Fields(msg), " "))
	sentinels := []error{ErrUnreachable}
	for _, s := range []error{transport.ErrAuthenticationRequired, transport.ErrAuthorizationFailed, transport.ErrRepositoryNotFound, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, s) {
			sentinels = append(sentinels, s)
		}
	}
	return &netError{msg: msg, sentinels: sentinels}
}

type netError struct {
	msg       string
	sentinels []error
}

func (e *netError) Error() string   { return e.msg }
func (e *netError) Unwrap() []error { return e.sentinels }

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
