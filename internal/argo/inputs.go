package argo

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/gobwas/glob"
	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// InputsKey returns a digest of everything a render of app depends on: the
// app's identity and canonical source specs (so chart reference and
// version), the content of every in-repo value and file-parameter file
// (its bytes, or its id in a ContentIDFS; a missing file hashed as
// absent: the render fails or skips it the same way at both revisions),
// the files of in-repo chart and directory paths.
// Sources whose reads cannot be bounded cheaply (kustomize, plugins,
// jsonnet, charts with file:// dependencies) hash the whole tree. Equal
// keys at two revisions mean the render is unchanged.
//
// rev is the revision being rendered: it is part of the key only when the
// app uses ARGOCD_APP_REVISION, whose value it is.
func (a App) InputsKey(fsys fs.FS, repoURL, rev string) (string, error) {
	k := &keyer{h: sha256.New(), fsys: fsys}
	buf := specBufs.Get().(*bytes.Buffer)
	defer specBufs.Put(buf)
	buf.Reset()
	// encoded into a reused buffer: a fleet's every app is keyed at both
	// revisions, and json.Marshal's copy of each spec was 6% of what a
	// one-app run at 1000 nodes allocated
	err := json.NewEncoder(buf).Encode(struct {
		Name, Namespace, Project, Instance string
		MultiSource                        bool
		Sources                            []Source
	}{a.Name, a.Namespace, a.Project, a.Instance, a.MultiSource, a.Sources})
	if err != nil {
		return "", err
	}
	spec := buf.Bytes()
	k.put("spec", spec)
	if bytes.Contains(spec, []byte("ARGOCD_APP_REVISION")) {
		k.put("revision", []byte(rev))
	}
	wholeRepo := false
	for _, s := range a.Sources {
		whole, err := k.source(a, s, repoURL, rev)
		if err != nil {
			return "", err
		}
		wholeRepo = wholeRepo || whole
	}
	if wholeRepo {
		if err := k.tree("."); err != nil {
			return "", err
		}
	}
	// A link out of the repository anywhere in it fails every app Argo CD
	// renders from it (symlinks.go): a revision adding one changes them
	// all, whatever files each reads.
	for _, s := range a.Sources {
		if SameRepo(s.RepoURL, repoURL) {
			if err := checkSymlinksOnce(fsys, "."); err != nil {
				k.put("symlinks", []byte(err.Error()))
			}
			break
		}
	}
	return hex.EncodeToString(k.h.Sum(nil)), nil
}

// specBufs holds the buffers InputsKey encodes specs into.
var specBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

type keyer struct {
	h    hash.Hash
	fsys fs.FS
}

// put writes a length-prefixed field so adjacent fields cannot blur.
func (k *keyer) put(tag string, b []byte) {
	var n [8]byte
	for _, f := range [][]byte{[]byte(tag), b} {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		k.h.Write(n[:])
		k.h.Write(f)
	}
}

// ContentIDFS is an fs.FS that names a file's content without reading
// it, as a git tree view does with the blob id: equal ids mean equal
// content. InputsKey then hashes a file's id, not its bytes, and keys of
// two revisions compare as well; across a ContentIDFS and a plain fs.FS
// they never match, which costs a render and never hides a change.
type ContentIDFS interface {
	fs.FS
	ContentID(name string) (string, error)
}

func (k *keyer) file(name string) error {
	tag, data, err := k.content(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		k.put("absent", []byte(name))
		return nil
	case err != nil:
		return err
	}
	k.put(tag+name, data)
	return nil
}

// content is what stands for a file's bytes in the key: its content id
// when the view names one, else the bytes.
func (k *keyer) content(name string) (string, []byte, error) {
	if c, ok := k.fsys.(ContentIDFS); ok {
		id, err := c.ContentID(name)
		return "id:", []byte(id), err
	}
	data, err := fs.ReadFile(k.fsys, name)
	return "file:", data, err
}

// tree hashes every file below dir in walk (lexical) order.
func (k *keyer) tree(dir string) error {
	return fs.WalkDir(k.fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		return k.file(p)
	})
}

// source hashes what one source reads; true means "hash the whole tree".
func (k *keyer) source(a App, s Source, repoURL, rev string) (bool, error) {
	inRepo := s.Chart == "" && SameRepo(s.RepoURL, repoURL)
	env := a.buildEnv(s, rev)
	switch s.Kind {
	case KindHelm:
		// remote value files are not hashed, so the default schemes do
		vfs, err := a.ValueFiles(s, repoURL, env, config.DefaultValuesFileSchemes)
		if err != nil {
			return false, err
		}
		if vfs, err = ExpandValueFiles(vfs, k.fsys, nil); err != nil {
			return false, err
		}
		for _, vf := range vfs {
			if vf.InRepo {
				if err := k.file(vf.Path); err != nil {
					return false, err
				}
			}
		}
		fps, err := a.FileParams(s, repoURL, env, config.DefaultValuesFileSchemes)
		if err != nil {
			return false, err
		}
		for _, fp := range fps {
			if fp.File.InRepo {
				if err := k.file(fp.File.Path); err != nil {
					return false, err
				}
			}
		}
		if !inRepo {
			return false, nil
		}
		return hasFileDeps(k.fsys, dirOf(s.Path)), k.tree(dirOf(s.Path))
	case KindDirectory:
		if !inRepo {
			return false, nil
		}
		files, err := s.DirectoryFiles(k.fsys)
		if err != nil {
			return false, fmt.Errorf("app %s: %w", a.Name, err)
		}
		jsonnet := s.Directory != nil && s.Directory.Jsonnet != nil
		for _, f := range files {
			jsonnet = jsonnet || strings.HasSuffix(f, ".jsonnet")
			if err := k.file(f); err != nil {
				return false, err
			}
		}
		return jsonnet, nil
	case KindKustomize, KindPlugin:
		return inRepo, nil
	}
	return false, nil
}

// hasFileDeps reports whether the chart at dir pulls dependencies from
// elsewhere in the repository (repository: file://...).
func hasFileDeps(fsys fs.FS, dir string) bool {
	for _, name := range []string{"Chart.yaml", "requirements.yaml"} {
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			continue
		}
		var c struct {
			Dependencies []struct {
				Repository string `yaml:"repository"`
			} `yaml:"dependencies"`
		}
		if yaml.Unmarshal(data, &c) != nil {
			return true // unreadable: be conservative
		}
		for _, d := range c.Dependencies {
			if strings.HasPrefix(d.Repository, "file://") {
				return true
			}
		}
	}
	return false
}

var manifestFile = regexp.MustCompile(`\.(yaml|yml|json|jsonnet)$`)

// DirectoryFiles lists, in lexical order, the repository-relative files a
// directory source reads, as Argo CD selects them: manifest extensions
// only, subdirectories only with recurse, then exclude and include globs
// matched against the path relative to the source path, where "*" also
// crosses "/" and {a,b} alternatives work. A glob that does not compile
// matches nothing, as in Argo CD.
func (s Source) DirectoryFiles(fsys fs.FS) ([]string, error) {
	root := dirOf(s.Path)
	var dir Directory
	if s.Directory != nil {
		dir = *s.Directory
	}
	inc, incErr := glob.Compile(dir.Include)
	exc, excErr := glob.Compile(dir.Exclude)
	var out []string
	err := fs.WalkDir(fsys, root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != root && !dir.Recurse {
				return fs.SkipDir
			}
			return nil
		}
		if !dir.DisableExtensionFilter && !manifestFile.MatchString(e.Name()) {
			return nil
		}
		rel := strings.TrimPrefix(p, root+"/")
		if root == "." {
			rel = p
		}
		if dir.Exclude != "" && excErr == nil && exc.Match(rel) {
			return nil
		}
		if dir.Include != "" && (incErr != nil || !inc.Match(rel)) {
			return nil
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("directory source %q: %w", s.Path, err)
	}
	sort.Strings(out)
	return out, nil
}
