package argo

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

type rawDir struct {
	Path    string `yaml:"path"`
	Exclude bool   `yaml:"exclude"`
}

type rawGit struct {
	RepoURL     string   `yaml:"repoURL"`
	Revision    string   `yaml:"revision"`
	Directories []rawDir `yaml:"directories"`
	Files       []struct {
		Path    string `yaml:"path"`
		Exclude bool   `yaml:"exclude"`
	} `yaml:"files"`
	PathParamPrefix string            `yaml:"pathParamPrefix"`
	Values          map[string]string `yaml:"values"`
}

// gitParams expands a git generator against this revision's tree. Its
// revision field is ignored on purpose: a diff expands each revision
// against itself.
func (d *discovery) gitParams(n *yaml.Node, r *renderer) ([]map[string]any, error) {
	var g rawGit
	if err := n.Decode(&g); err != nil {
		return nil, fmt.Errorf("git generator: %w", err)
	}
	fsys, key, err := d.generatorTree(&g)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	switch {
	case len(g.Directories) > 0:
		dirs, err := d.candidateDirs(fsys, key, g.Directories)
		if err != nil {
			return nil, err
		}
		for _, p := range dirs {
			include, exclude := false, false
			// path.Match, like Argo CD: "*" stays within a segment and
			// "**" is no different from "*".
			for _, want := range g.Directories {
				if ok, _ := path.Match(want.Path, p); ok {
					include = include || !want.Exclude
					exclude = exclude || want.Exclude
				}
			}
			if include && !exclude {
				out = append(out, dirParams(p, g.PathParamPrefix, r.goTmpl))
			}
		}
	case len(g.Files) > 0:
		var err error
		if out, err = d.fileParams(fsys, &g, r.goTmpl); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("git generator has neither directories nor files")
	}
	for _, p := range out {
		if err := r.addValues(p, g.Values); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// candidateDirs lists the directories the include patterns match. Only
// the directories a pattern names are read (fs.Glob), never the whole tree:
// a repository may hold tens of thousands of unrelated files, and every
// ApplicationSet of every env asks. path.Match only matches paths of the
// pattern's depth, so this finds exactly what matching every directory
// would. Hidden directories are skipped, as Argo CD does.
func (d *discovery) candidateDirs(fsys fs.FS, key string, dirs []rawDir) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, want := range dirs {
		if want.Exclude {
			continue
		}
		matches, ok := d.globs[key+"\x00"+want.Path]
		if !ok {
			var err error
			if matches, err = globDirs(fsys, want.Path); err != nil {
				return nil, err
			}
			d.globs[key+"\x00"+want.Path] = matches
		}
		for _, p := range matches {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// globDirs lists the directories matching pattern. Like the repo-server's
// walk, it takes real directories only: a symlink to a directory is not
// one.
func globDirs(fsys fs.FS, pattern string) ([]string, error) {
	matches, err := fs.Glob(fsys, strings.TrimSuffix(pattern, "/"))
	if err != nil {
		return nil, fmt.Errorf("git generator directory %q: %w", pattern, err)
	}
	var out []string
	dirs := map[string]map[string]fs.DirEntry{} // each parent read once, not once per match
	for _, p := range matches {
		if hidden(p) || p == "." {
			continue
		}
		if isRealDir(fsys, p, dirs) {
			out = append(out, p)
		}
	}
	return out, nil
}

// isRealDir reports whether p is a directory entry of its parent (not a
// symlink to one); dirs keeps the parents' entries read so far.
func isRealDir(fsys fs.FS, p string, dirs map[string]map[string]fs.DirEntry) bool {
	parent := path.Dir(p)
	byName, ok := dirs[parent]
	if !ok {
		entries, err := fs.ReadDir(fsys, parent)
		if err == nil {
			byName = make(map[string]fs.DirEntry, len(entries))
			for _, e := range entries {
				if _, dup := byName[e.Name()]; !dup { // the first of a name, as the scan found it
					byName[e.Name()] = e
				}
			}
		}
		dirs[parent] = byName
	}
	e, ok := byName[path.Base(p)]
	return ok && e.IsDir() && e.Type()&fs.ModeSymlink == 0
}

func hidden(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") && seg != "." {
			return true
		}
	}
	return false
}

// pathParams fills the path parameters Argo CD gives a directory (dir) or
// a file (dir plus file) under prefix.
func pathParams(dir, file, prefix string, goTmpl bool) map[string]any {
	name := "path"
	if prefix != "" {
		name = prefix + ".path"
	}
	base := path.Base(dir)
	if goTmpl {
		p := map[string]any{"path": dir, "basename": base,
			"basenameNormalized": SanitizeName(base), "segments": strings.Split(dir, "/")}
		if file != "" {
			p["filename"], p["filenameNormalized"] = path.Base(file), SanitizeName(path.Base(file))
		}
		if prefix != "" {
			return map[string]any{prefix: map[string]any{"path": p}}
		}
		return map[string]any{"path": p}
	}
	out := map[string]any{name: dir, name + ".basename": base, name + ".basenameNormalized": SanitizeName(base)}
	if file != "" {
		out[name+".filename"], out[name+".filenameNormalized"] = path.Base(file), SanitizeName(path.Base(file))
	}
	for i, seg := range strings.Split(dir, "/") {
		if seg != "" {
			out[name+"["+strconv.Itoa(i)+"]"] = seg
		}
	}
	return out
}

func dirParams(dir, prefix string, goTmpl bool) map[string]any {
	return pathParams(dir, "", prefix, goTmpl)
}

// fileParams reads each matched file as one object or a list of objects.
// Matching is `git ls-files` pathspecs, Argo CD's default (see
// pathspecMatch), or doublestar globs when the ApplicationSet controller
// runs with the new git file globbing (see globFiles).
func (d *discovery) fileParams(fsys fs.FS, g *rawGit, goTmpl bool) ([]map[string]any, error) {
	var inc, exc []string
	for _, f := range g.Files {
		if f.Exclude {
			exc = append(exc, f.Path)
		} else {
			inc = append(inc, f.Path)
		}
	}
	var files []string
	var err error
	if d.cfg.Argo.ApplicationSet.NewGitFileGlobbing {
		files, err = globFiles(fsys, inc, exc)
	} else {
		err = fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			if matchAnySpec(inc, p) && !matchAnySpec(exc, p) {
				files = append(files, p)
			}
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []map[string]any
	for _, f := range files {
		objs, err := readObjects(fsys, f)
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			p := pathParams(path.Dir(f), f, g.PathParamPrefix, goTmpl)
			if goTmpl {
				for k, v := range obj {
					if _, set := p[k]; !set {
						p[k] = v
					}
				}
			} else {
				for k, v := range flatten(obj) {
					if _, set := p[k]; !set {
						p[k] = v
					}
				}
			}
			out = append(out, p)
		}
	}
	return out, nil
}

func matchAnySpec(specs []string, name string) bool {
	for _, s := range specs {
		if pathspecMatch(s, name) {
			return true
		}
	}
	return false
}

// readObjects parses a generator file as Argo CD does: one object (an
// empty file is one empty object), else a list of objects (an empty list
// gives no parameter set at all, a null item an empty one).
func readObjects(fsys fs.FS, name string) ([]map[string]any, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	obj, err := unmarshal11(data)
	if err != nil {
		return nil, posError(name, 0, fmt.Errorf("git generator file: unable to parse file: %w", err))
	}
	switch v := obj.(type) {
	case nil:
		return []map[string]any{{}}, nil
	case map[string]any:
		return []map[string]any{v}, nil
	case []any:
		out := []map[string]any{}
		for _, item := range v {
			switch m := item.(type) {
			case nil:
				out = append(out, map[string]any{})
			case map[string]any:
				out = append(out, m)
			default:
				return nil, posError(name, 0, fmt.Errorf("git generator file: unable to parse file: list items must be objects"))
			}
		}
		return out, nil
	}
	return nil, posError(name, 0, fmt.Errorf("git generator file: unable to parse file: must hold an object or a list of objects"))
}

var invalidDNSChars = regexp.MustCompile(`[^-a-z0-9.]`)

// SanitizeName is Argo CD's name normaliser (path.basenameNormalized, the
// normalize template function): lower case, characters other than
// [-a-z0-9.] become "-", at most 253 characters, no leading or trailing
// "-" or ".".
func SanitizeName(name string) string {
	name = invalidDNSChars.ReplaceAllString(strings.ToLower(name), "-")
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.Trim(name, "-.")
}

// generatorTree is the tree a git generator reads: this revision's for
// this repository (its revision field ignored on purpose, see Discover),
// else the other repository at the generator's revision, as the
// ApplicationSet controller reads it.
func (d *discovery) generatorTree(g *rawGit) (fs.FS, string, error) {
	if SameRepo(g.RepoURL, d.cfg.RepoURL) {
		return d.fsys, "", nil
	}
	if d.repos == nil {
		return nil, "", fmt.Errorf("git generator repoURL %s is not this repository (%s), and no other repository can be read", g.RepoURL, d.cfg.RepoURL)
	}
	fsys, err := d.repos(g.RepoURL, g.Revision)
	if err != nil {
		return nil, "", fmt.Errorf("git generator repository %s at %q: %w", g.RepoURL, g.Revision, err)
	}
	return fsys, RepoKey(g.RepoURL) + "@" + g.Revision, nil
}
