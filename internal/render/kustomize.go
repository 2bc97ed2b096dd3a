package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// ErrOffline marks a kustomization that needs something outside the
// repository (a remote base, a missing path that kustomize would try to
// clone as one): it cannot be rendered offline.
var ErrOffline = errors.New("cannot be rendered offline")

// kustomizationNames are the file names `kustomize build` looks for, in
// its order.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// kustomize runs `kustomize build dir` on the tree fsys with the kustomize
// library Argo CD's bundled binary is built from, with the flags of
// kustomize.buildOptions. Every base and component must be a directory of
// fsys: remote bases, or paths kustomize would try to clone, are
// ErrOffline, and nothing is fetched. Without --reorder, kustomize follows the
// kustomization's sortOptions if it has them, else the legacy order
// (Namespaces first...): the library's own default, none, would keep
// the input order.
//
// The build runs in memory. A kustomization that inflates Helm charts
// with Helm enabled is built again on a copy on disk with helm answered
// by this process (kustomizeWithHelm); without h it is ErrNeedsHelm.
func kustomize(ctx context.Context, fsys fs.FS, dir string, bf buildFlags, h *KustomizeHelm) ([]byte, error) {
	st := &staging{fsys: fsys, dir: path.Clean(dir), roots: map[string]bool{}, whole: bf.restrict == types.LoadRestrictionsNone}
	if err := kustomizeRoots(fsys, st.dir, st.roots, 0); err != nil {
		return nil, err
	}
	mem := filesys.MakeFsInMemory()
	if err := st.copyTo(mem, "/"); err != nil {
		return nil, err
	}
	st.mem = mem
	m, err := krusty.MakeKustomizer(bf.options()).Run(mem, path.Join("/", dir))
	if err != nil {
		err = bf.explain(err)
		switch {
		case errors.Is(err, ErrNeedsHelm) && h != nil:
			if m, err = kustomizeWithHelm(ctx, st, bf, h); err != nil {
				return nil, err
			}
		case errors.Is(err, ErrNeedsHelm) || errors.Is(err, ErrNeedsPlugins):
			return nil, err
		default:
			return nil, fmt.Errorf("kustomize build %s: %s", dir, oneLine(err.Error()))
		}
	}
	if err := managedByVersion(m); err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	if bf.output != "" {
		return []byte{}, nil // -o: the build went to a file, Argo CD reads nothing
	}
	out, err := m.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	return out, nil
}

// staging is what a build copies out of the tree: every kustomization
// root it reaches, or with LoadRestrictionsNone (files outside the roots
// may be read) the whole repository dir belongs to.
type staging struct {
	fsys  fs.FS
	dir   string
	roots map[string]bool
	whole bool
	// mem is the copy in memory, once made: the build that holds only
	// the repository's files, since nothing else is in it.
	mem filesys.FileSystem
}

// copyTo writes the staged files into dst below prefix ("/" in memory, a
// temporary directory on disk).
func (st *staging) copyTo(dst filesys.FileSystem, prefix string) error {
	if st.whole {
		if err := copyRepo(st.fsys, st.dir, dst, prefix); err != nil {
			return err
		}
	}
	for root := range st.roots {
		if coveredBy(root, st.roots) || st.whole && repoRoot(root) == repoRoot(st.dir) {
			continue // copied with a root above it, or with the repository
		}
		if err := copyTree(st.fsys, root, dst, prefix); err != nil {
			return err
		}
	}
	return nil
}

// kustomizeRoots collects dir and every local kustomization it reaches
// through resources, bases and components. Under the root-only load
// restrictor each of them reads files only below itself, so copying these
// directories gives kustomize all it may read.
func kustomizeRoots(fsys fs.FS, dir string, roots map[string]bool, depth int) error {
	if roots[dir] {
		return nil
	}
	if depth > 50 {
		return fmt.Errorf("kustomization %s: bases nest deeper than 50", dir)
	}
	roots[dir] = true
	data, name, err := readKustomization(fsys, dir)
	if err != nil {
		return err
	}
	var k struct {
		Resources  []string `json:"resources"`
		Bases      []string `json:"bases"`
		Components []string `json:"components"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		return fmt.Errorf("%s: %s", path.Join(dir, name), oneLine(err.Error()))
	}
	for _, entry := range append(append(k.Resources, k.Bases...), k.Components...) {
		if remote(entry) {
			return fmt.Errorf("%s: remote base %s: %w", path.Join(dir, name), scrub.URL(entry), ErrOffline)
		}
		p := path.Join(dir, entry)
		if p == ".." || strings.HasPrefix(p, "../") {
			return fmt.Errorf("%s: %s is %w", path.Join(dir, name), entry, ErrOutsideRepo)
		}
		st, err := fs.Stat(fsys, p)
		if err != nil {
			// kustomize would try a path it cannot find as a git URL
			return fmt.Errorf("%s: %s is not in the repository: %w", path.Join(dir, name), entry, ErrOffline)
		}
		if st.IsDir() {
			if err := kustomizeRoots(fsys, p, roots, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func readKustomization(fsys fs.FS, dir string) ([]byte, string, error) {
	for _, name := range kustomizationNames {
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err == nil {
			return data, name, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
	}
	return nil, "", fmt.Errorf("%s has no kustomization.yaml", dir)
}

// remote reports entries kustomize reads over the network: URLs, scp-like
// git addresses and the host/org/repo forms it clones.
func remote(entry string) bool {
	return strings.Contains(entry, "://") || strings.HasPrefix(entry, "git@") ||
		strings.Contains(entry, "?ref=") || strings.Contains(entry, "?version=") ||
		strings.HasPrefix(entry, "github.com/") || strings.HasPrefix(entry, "gitlab.com/") ||
		strings.HasPrefix(entry, "bitbucket.org/")
}

// coveredBy reports whether a proper ancestor of dir is in roots.
func coveredBy(dir string, roots map[string]bool) bool {
	for d := path.Dir(dir); d != dir; dir, d = d, path.Dir(d) {
		if roots[d] {
			return true
		}
	}
	return false
}

func copyTree(fsys fs.FS, root string, dst filesys.FileSystem, prefix string) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return dst.MkdirAll(filepath.Join(prefix, filepath.FromSlash(p)))
		}
		if !d.Type().IsRegular() {
			return nil // links are not followed, as Argo CD refuses out-of-repo ones
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return dst.WriteFile(filepath.Join(prefix, filepath.FromSlash(p)), data)
	})
}

// kustomizeDeprecations names the deprecated fields (bases,
// commonLabels, imageTags, patchesJson6902, patchesStrategicMerge, vars)
// of every kustomization of the repository the build at dir reads, with
// kustomize's own check and words, one line per file and field. The
// library prints the same to os.Stderr on every build; this says it
// once, with the file, as the render's notices.
func kustomizeDeprecations(fsys fs.FS, dir string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if seen[dir] || depth > 50 {
			return
		}
		seen[dir] = true
		data, name, err := readKustomization(fsys, dir)
		if err != nil {
			return // the build says why
		}
		var k types.Kustomization
		if k.Unmarshal(data) != nil {
			return
		}
		if msgs := k.CheckDeprecatedFields(); msgs != nil {
			for _, m := range *msgs {
				out = append(out, fmt.Sprintf("kustomization %s: %s", path.Join(dir, name), strings.TrimPrefix(m, "# Warning: ")))
			}
		}
		for _, e := range append(append(k.Resources, k.Bases...), k.Components...) {
			p := path.Join(dir, e)
			if remote(e) || !fs.ValidPath(p) {
				continue
			}
			if st, err := fs.Stat(fsys, p); err == nil && st.IsDir() {
				walk(p, depth+1)
			}
		}
	}
	walk(path.Clean(dir), 0)
	return out
}

// KustomizeStderrNotice reports whether line is one of the deprecation
// notices the kustomize library writes straight to os.Stderr on every
// build (internal/target's KustTarget.Load). Render reports those itself,
// once per file (kustomizeDeprecations); a command that captures
// os.Stderr drops them.
func KustomizeStderrNotice(line string) bool {
	return kustomizeStderrNotices()[strings.TrimSpace(line)]
}

// kustomizeStderrNotices are the lines CheckDeprecatedFields gives for a
// kustomization using every deprecated field: kustomize's own words.
var kustomizeStderrNotices = sync.OnceValue(func() map[string]bool {
	k := types.Kustomization{Bases: []string{"b"}, CommonLabels: map[string]string{"a": "b"}, ImageTags: []types.Image{{Name: "i"}},
		PatchesJson6902: []types.Patch{{Path: "p"}}, PatchesStrategicMerge: []types.PatchStrategicMerge{"p"}, Vars: []types.Var{{Name: "v"}}}
	out := map[string]bool{}
	if msgs := k.CheckDeprecatedFields(); msgs != nil {
		for _, m := range *msgs {
			out[strings.TrimSpace(m)] = true
		}
	}
	return out
})
