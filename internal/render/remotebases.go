package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strings"
	"testing/fstest"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/gitsource"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// RepoOpener opens a git repository at a ref as `git fetch URL REF`
// takes it (gitsource.Fetcher does).
type RepoOpener interface {
	OpenRef(ctx context.Context, repoURL, ref string) (fs.FS, string, error)
}

// withRemoteBases makes the remote bases of the kustomization at dir (and
// of every kustomization it reaches) local, as kustomize clones them
// when Argo CD builds: each repository is fetched at the base's ref,
// mounted in the tree, and the entry rewritten to point there, in an
// overlay (the tree is never changed). Without a RepoOpener, or with no
// remote base, fsys is returned as it is and the build reports the base
// as not rendered.
func withRemoteBases(ctx context.Context, fsys fs.FS, repos RepoOpener, dir string) (fs.FS, error) {
	if repos == nil {
		return fsys, nil
	}
	r := &remoteBases{ctx: ctx, repos: repos, base: fsys, mounts: map[string]fs.FS{},
		files: map[string][]byte{}, seen: map[string]bool{}}
	if err := r.walk(path.Clean(dir), 0); err != nil {
		return nil, err
	}
	if len(r.mounts) == 0 && !r.fetched {
		return fsys, nil
	}
	return r.fs(), nil
}

type remoteBases struct {
	ctx    context.Context
	repos  RepoOpener
	base   fs.FS
	mounts map[string]fs.FS  // by mount key
	files  map[string][]byte // rewritten kustomizations, downloaded files
	seen   map[string]bool
	// fetched: a resource was downloaded
	fetched bool
}

func (r *remoteBases) fs() fs.FS {
	return &overlayFiles{FS: gitsource.Mount(r.base, r.mounts), files: r.files}
}

func (r *remoteBases) walk(dir string, depth int) error {
	if r.seen[dir] || depth > 50 {
		return nil
	}
	r.seen[dir] = true
	fsys := r.fs()
	data, name, err := readKustomization(fsys, dir)
	if err != nil {
		return nil // not a kustomization: the build says what is wrong
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	root, changed := doc.Content[0], false
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "resources", "bases", "components":
		default:
			continue
		}
		for _, e := range root.Content[i+1].Content {
			if e.Kind != yaml.ScalarNode {
				continue
			}
			target, remote, err := r.entry(fsys, dir, e.Value)
			if err != nil {
				return fmt.Errorf("%s: remote base %s: %w", path.Join(dir, name), scrub.URL(e.Value), err)
			}
			if remote {
				e.Value, changed = relative(dir, target), true
			}
			if target != "" && !strings.Contains(target, "/.argocd-http-") {
				if err := r.walk(target, depth+1); err != nil {
					return err
				}
			}
		}
	}
	if changed {
		out, err := yaml.Marshal(&doc)
		if err != nil {
			return err
		}
		r.files[path.Join(dir, name)] = out
	}
	return nil
}

// entry returns the directory an entry of the kustomization at dir names
// ("" for a file), and whether it is a remote base now mounted.
func (r *remoteBases) entry(fsys fs.FS, dir, e string) (string, bool, error) {
	local := path.Join(dir, e)
	if st, err := fs.Stat(fsys, local); err == nil {
		if st.IsDir() {
			return local, false, nil
		}
		return "", false, nil // a file: kustomize reads it first
	}
	if u, err := url.Parse(e); err == nil && (u.Scheme == "http" || u.Scheme == "https") && !gitLike(e) {
		return r.remoteFile(dir, e)
	}
	rb, ok := gitsource.ParseKustomizeRemote(e)
	if !ok {
		return "", false, nil
	}
	tree, commit, err := r.repos.OpenRef(r.ctx, rb.URL, rb.Ref)
	if err != nil {
		return "", false, err
	}
	key := gitsource.MountKey(rb.URL) + "-" + commit[:12]
	r.mounts[key] = tree
	target := path.Join(gitsource.MountDir, key, rb.Root)
	if st, err := fs.Stat(r.fs(), target); err != nil || !st.IsDir() {
		return "", false, fmt.Errorf("%s is not a directory of %s at %s", firstNonEmpty(rb.Root, "."), gitsource.Redact(rb.URL), commit)
	}
	return target, true, nil
}

// remoteFile downloads a resource kustomize reads over HTTP and puts it
// in the overlay, in the kustomization's own directory (the load
// restrictor allows no other); the entry then names it.
func (r *remoteBases) remoteFile(dir, e string) (string, bool, error) {
	data, err := fetchURL(r.ctx, e)
	if err != nil {
		return "", false, err
	}
	sum := sha256.Sum256([]byte(e))
	name := path.Join(dir, ".argocd-http-"+hex.EncodeToString(sum[:8])+".yaml")
	r.files[name] = data
	r.fetched = true
	return name, true, nil
}

// gitLike keeps http(s) entries that kustomize would fetch as plain files
// (a URL with no repository marker) out: those it reads over HTTP.
func gitLike(e string) bool {
	u, err := url.Parse(e)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return true
	}
	p := strings.TrimPrefix(u.Path, "/")
	return strings.Contains(p, "//") || strings.Contains(p, ".git") || strings.Contains(p, "_git/") ||
		u.Query().Has("ref") || u.Query().Has("version")
}

// relative is the path from directory dir to target, both slash paths of
// one tree.
func relative(dir, target string) string {
	if dir == "." {
		return target
	}
	return strings.Repeat("../", strings.Count(dir, "/")+1) + target
}

// overlayFiles is an FS where some files have other content.
type overlayFiles struct {
	fs.FS
	files map[string][]byte
}

func (o *overlayFiles) Open(name string) (fs.File, error) {
	if b, ok := o.files[name]; ok {
		return fstest.MapFS{name: {Data: b, Mode: 0o644}}.Open(name)
	}
	return o.FS.Open(name)
}

func (o *overlayFiles) ReadFile(name string) ([]byte, error) {
	if b, ok := o.files[name]; ok {
		return b, nil
	}
	return fs.ReadFile(o.FS, name)
}

// ReadDir lists name with the overlay's files added to it.
func (o *overlayFiles) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(o.FS, name)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
	}
	for p, data := range o.files {
		if path.Dir(p) == path.Clean(name) && !have[path.Base(p)] {
			info, _ := fs.Stat(fstest.MapFS{p: {Data: data, Mode: 0o644}}, p)
			entries = append(entries, fs.FileInfoToDirEntry(info))
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

func (o *overlayFiles) Stat(name string) (fs.FileInfo, error) {
	if b, ok := o.files[name]; ok {
		return fs.Stat(fstest.MapFS{name: {Data: b, Mode: 0o644}}, name)
	}
	return fs.Stat(o.FS, name)
}
