package ordering

import (
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/gobwas/glob"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// manifestName is the file pattern Argo CD renders from a directory source.
var manifestName = regexp.MustCompile(`\.(yaml|yml|json)$`)

// markRoots flags the app-of-apps at the top of the tree: an Application
// whose directory sources render other objects of this environment while
// no other app renders its own file. Its sync-wave orders nothing (nothing
// syncs it but a bootstrap) and its auto-sync only keeps the other
// Application manifests in place, so the wave and manual-sync rules skip
// it. A repository without an app-of-apps has no root: every object is
// checked.
func markRoots(fsys fs.FS, repoURL string, apps []argo.App, objs []Object) {
	holds := map[string]bool{} // files that hold an object of this env
	for _, o := range objs {
		holds[o.File] = true
	}
	renders := map[string][]string{} // owner -> files its directory sources render
	for _, a := range apps {
		owner := ownerKey(KindApplication, a.File, a.Name)
		if a.AppSet != "" {
			owner = ownerKey(KindApplicationSet, a.File, a.AppSet)
		}
		for _, s := range a.Sources {
			if s.Kind == argo.KindDirectory && argo.SameRepo(s.RepoURL, repoURL) {
				renders[owner] = append(renders[owner], directoryFiles(fsys, s)...)
			}
		}
	}
	renderedBy := map[string]map[string]bool{} // file -> owners
	for owner, files := range renders {
		for _, f := range files {
			if renderedBy[f] == nil {
				renderedBy[f] = map[string]bool{}
			}
			renderedBy[f][owner] = true
		}
	}
	for i := range objs {
		o := &objs[i]
		if o.Kind != KindApplication {
			continue
		}
		self := ownerKey(o.Kind, o.File, o.Name)
		o.Root = rendersOthers(renders[self], o.File, holds) && !renderedByOther(renderedBy[o.File], self)
	}
}

func ownerKey(kind, file, name string) string { return kind + "\x00" + file + "\x00" + name }

func rendersOthers(files []string, own string, holds map[string]bool) bool {
	for _, f := range files {
		if f != own && holds[f] {
			return true
		}
	}
	return false
}

func renderedByOther(owners map[string]bool, self string) bool {
	for o := range owners {
		if o != self {
			return true
		}
	}
	return false
}

// directoryFiles lists the files a directory source renders, with Argo
// CD's include/exclude semantics (gobwas globs on the path relative to the
// source path, `*` crossing "/"). A bad pattern renders nothing: argo
// rendering reports that error, the inventory need not.
func directoryFiles(fsys fs.FS, s argo.Source) []string {
	dir := path.Clean(s.Path)
	var recurse bool
	var inc, exc glob.Glob
	if d := s.Directory; d != nil {
		recurse = d.Recurse
		var err1, err2 error
		inc, err1 = compile(d.Include)
		exc, err2 = compile(d.Exclude)
		if err1 != nil || err2 != nil {
			return nil
		}
	}
	var out []string
	_ = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable part of the tree: nothing rendered from it
		}
		if d.IsDir() {
			if p != dir && !recurse {
				return fs.SkipDir
			}
			return nil
		}
		rel := p
		if dir != "." {
			rel = strings.TrimPrefix(p, dir+"/")
		}
		if manifestName.MatchString(d.Name()) && (exc == nil || !exc.Match(rel)) && (inc == nil || inc.Match(rel)) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func compile(pattern string) (glob.Glob, error) {
	if pattern == "" {
		return nil, nil
	}
	return glob.Compile(pattern)
}
