package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"strings"

	"github.com/google/go-jsonnet"
	"sigs.k8s.io/yaml"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// jsonnetRoot is where the repository sits in the paths the Jsonnet VM
// sees. Argo CD evaluates files of its checkout by absolute path, so
// relative imports, library paths and `std.thisFile` are absolute there
// too; a fixed root keeps them absolute here and is cut from errors.
const jsonnetRoot = "/_repo"

// jsonnetManifests evaluates the .jsonnet file p of a directory source at
// dir as Argo CD's repo-server does: a fresh go-jsonnet VM per file with
// the source's extVars and tlas, imports looked up next to the importing
// file, then in the libs (relative to the repository root, the last one
// first), then in dir. The result must be an array of objects (nulls
// skipped) or one object, each with a kind; an object with an items
// array stands for its items, as in Argo CD.
func jsonnetManifests(fsys fs.FS, dir, p string, jr jsonnetRun) ([]map[string]any, error) {
	vm, err := jsonnetVM(fsys, dir, jr.opts)
	if err != nil {
		return nil, err
	}
	// std.trace writes to the VM's trace output, stderr by default: it
	// is a notice of this render
	vm.SetTraceOut(jr.traceOut())
	out, err := vm.EvaluateFile(jsonnetRoot + "/" + p)
	if err != nil {
		if crash := jsonnetCrash(err.Error()); crash != nil {
			return nil, fmt.Errorf("evaluating jsonnet: %w", crash)
		}
		msg := strings.ReplaceAll(err.Error(), jsonnetRoot+"/", "")
		return nil, fmt.Errorf("evaluating jsonnet: %s", oneLine(msg))
	}
	objs, err := jsonnetObjects([]byte(out))
	if err != nil {
		return nil, fmt.Errorf("unmarshalling the jsonnet output: %w", err)
	}
	return expandLists(objs)
}

func jsonnetVM(fsys fs.FS, dir string, o *argo.JsonnetOptions) (*jsonnet.VM, error) {
	vm := jsonnet.MakeVM()
	imp := &treeImporter{fsys: fsys, jpaths: []string{jsonnetRoot + "/" + dir}, cache: map[string]*importEntry{}}
	if dir == "." {
		imp.jpaths[0] = jsonnetRoot
	}
	if o != nil {
		for _, v := range o.TLAs {
			if v.Code {
				vm.TLACode(v.Name, v.Value)
			} else {
				vm.TLAVar(v.Name, v.Value)
			}
		}
		for _, v := range o.ExtVars {
			if v.Code {
				vm.ExtCode(v.Name, v.Value)
			} else {
				vm.ExtVar(v.Name, v.Value)
			}
		}
		for _, lib := range o.Libs {
			rel := path.Clean(strings.TrimLeft(lib, "/"))
			if rel == ".." || strings.HasPrefix(rel, "../") {
				return nil, fmt.Errorf("jsonnet lib %q resolved to outside repository root", lib)
			}
			imp.jpaths = append(imp.jpaths, path.Join(jsonnetRoot, rel))
		}
	}
	vm.Importer(imp)
	return vm, nil
}

// treeImporter is go-jsonnet's FileImporter over the repository tree: the
// same search order and caching, with paths outside the repository (which
// Argo CD would look up on the repo-server's own disk) never found.
type treeImporter struct {
	fsys   fs.FS
	jpaths []string
	cache  map[string]*importEntry
}

type importEntry struct {
	found    bool
	contents jsonnet.Contents
}

func (t *treeImporter) Import(importedFrom, importedPath string) (jsonnet.Contents, string, error) {
	dir, _ := path.Split(importedFrom)
	found, c, at, err := t.try(dir, importedPath)
	for i := len(t.jpaths) - 1; err == nil && !found && i >= 0; i-- {
		found, c, at, err = t.try(t.jpaths[i], importedPath)
	}
	if err != nil {
		return jsonnet.Contents{}, "", err
	}
	if !found {
		return jsonnet.Contents{}, "", fmt.Errorf("couldn't open import %q: no match locally or in the Jsonnet library paths", importedPath)
	}
	return c, at, nil
}

func (t *treeImporter) try(dir, importedPath string) (bool, jsonnet.Contents, string, error) {
	// Cleaned even when absolute: "/_repo/../etc/x" is /etc/x, outside
	// the repository, not a path of it.
	abs := path.Clean(importedPath)
	if !path.IsAbs(abs) {
		abs = path.Join(dir, importedPath)
	}
	if e, ok := t.cache[abs]; ok {
		return e.found, e.contents, abs, nil
	}
	e := &importEntry{}
	if rel, ok := strings.CutPrefix(abs, jsonnetRoot+"/"); ok && path.IsAbs(abs) {
		st, err := fs.Stat(t.fsys, rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return false, jsonnet.Contents{}, "", err
		case st.IsDir():
			return false, jsonnet.Contents{}, "", fmt.Errorf("read %s: is a directory", rel)
		default:
			data, err := fs.ReadFile(t.fsys, rel)
			if err != nil {
				return false, jsonnet.Contents{}, "", err
			}
			e.found, e.contents = true, jsonnet.MakeContentsRaw(data)
		}
	}
	t.cache[abs] = e
	return e.found, e.contents, abs, nil
}

// jsonnetObjects reads the evaluation result as Argo CD does: first as an
// array of Kubernetes objects, else as one object.
func jsonnetObjects(out []byte) ([]map[string]any, error) {
	var arr []json.RawMessage
	if err := json.Unmarshal(out, &arr); err == nil {
		objs, err := kubeObjects(arr)
		if err == nil {
			return objs, nil
		}
	}
	return kubeObjects([]json.RawMessage{out})
}

func kubeObjects(raw []json.RawMessage) ([]map[string]any, error) {
	var objs []map[string]any
	for _, r := range raw {
		if bytes.Equal(bytes.TrimSpace(r), []byte("null")) {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, err
		}
		// Argo CD's unstructured objects need a kind, and an apiVersion
		// that parses as a group/version.
		av, _ := m["apiVersion"].(string)
		if k, _ := m["kind"].(string); k == "" || strings.Count(av, "/") > 1 {
			return nil, fmt.Errorf("object 'Kind' is missing in '%s'", oneLine(string(r)))
		}
		objs = append(objs, m)
	}
	return objs, nil
}

// expandLists replaces an object holding an items array by its items and
// drops a list whose items are null, as Argo CD does with every rendered
// object.
func expandLists(objs []map[string]any) ([]map[string]any, error) {
	var out []map[string]any
	for _, o := range objs {
		items, has := o["items"]
		_, spec := o["spec"]
		_, status := o["status"]
		switch list, isList := items.([]any); {
		case isList:
			for _, it := range list {
				m, ok := it.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("items member is not an object: %T", it)
				}
				out = append(out, m)
			}
		case has && items == nil && !spec && !status:
		default:
			out = append(out, o)
		}
	}
	return out, nil
}

// objectYAML writes one object as a YAML document.
func objectYAML(o map[string]any) (string, error) {
	j, err := json.Marshal(o)
	if err != nil {
		return "", err
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(y), "\n"), nil
}

func jsonnetDocs(fsys fs.FS, dir, p string, jr jsonnetRun) ([]string, error) {
	objs, err := jsonnetManifests(fsys, dir, p, jr)
	if err != nil {
		return nil, err
	}
	docs := make([]string, 0, len(objs))
	for _, obj := range objs {
		doc, err := objectYAML(obj)
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// jsonnetRun is how a directory source evaluates its .jsonnet files: the
// source's options, and where std.trace's lines go.
type jsonnetRun struct {
	opts  *argo.JsonnetOptions
	trace *notices // nil: dropped
}

func (jr jsonnetRun) traceOut() io.Writer {
	if jr.trace == nil {
		return io.Discard
	}
	return traceWriter{jr.trace}
}

// traceWriter turns go-jsonnet's trace output ("TRACE: file:line text")
// into notices, paths relative to the repository.
type traceWriter struct{ n *notices }

func (w traceWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w.n.add(slog.LevelInfo, "jsonnet "+strings.ReplaceAll(line, jsonnetRoot+"/", ""))
	}
	return len(p), nil
}
