package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/render/jsonnetproc"
)

// jsonnetRoot is where the repository sits in the paths the Jsonnet VM
// sees. Argo CD evaluates files of its checkout by absolute path, so
// relative imports, library paths and `std.thisFile` are absolute there
// too; a fixed root keeps them absolute here and is cut from errors.
const jsonnetRoot = "/_repo"

// jsonnetManifests evaluates the .jsonnet file p of a directory source at
// dir as Argo CD's repo-server does (see jsonnetJob), in a child process
// bounded in time, memory and stack (jsonnetproc). The result must be an array of objects (nulls
// skipped) or one object, each with a kind; an object with an items
// array stands for its items, as in Argo CD.
func jsonnetManifests(fsys fs.FS, dir, p string, jr jsonnetRun) ([]map[string]any, error) {
	job, err := jsonnetJob(dir, p, jr.opts)
	if err != nil {
		return nil, err
	}
	ctx := jr.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	// std.trace writes to the VM's trace output, stderr by default: it
	// is a notice of this render
	out, err := jsonnetproc.Evaluate(ctx, job, repoFile(fsys), jr.traceOut())
	switch {
	case errors.Is(err, jsonnetproc.ErrTimeout):
		return nil, fmt.Errorf("evaluating jsonnet: %w", limitError{err, ErrTimeout})
	case errors.Is(err, jsonnetproc.ErrTooLarge):
		return nil, fmt.Errorf("evaluating jsonnet: %w", limitError{err, ErrTooLarge})
	case errors.Is(err, jsonnetproc.ErrNotInstalled) || ctx.Err() != nil && err != nil:
		return nil, fmt.Errorf("evaluating jsonnet: %w", err)
	case err != nil:
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

// jsonnetJob is the evaluation of p as Argo CD's repo-server sets it up:
// the source's tlas and extVars, imports looked up next to the importing
// file, then in the libs (relative to the repository root, the last one
// first), then in dir.
func jsonnetJob(dir, p string, o *argo.JsonnetOptions) (jsonnetproc.Job, error) {
	job := jsonnetproc.Job{File: jsonnetRoot + "/" + p, Root: jsonnetRoot, JPaths: []string{jsonnetRoot + "/" + dir}}
	if dir == "." {
		job.JPaths[0] = jsonnetRoot
	}
	if o == nil {
		return job, nil
	}
	for _, v := range o.TLAs {
		job.TLAs = append(job.TLAs, jsonnetproc.Var{Name: v.Name, Value: v.Value, Code: v.Code})
	}
	for _, v := range o.ExtVars {
		job.ExtVars = append(job.ExtVars, jsonnetproc.Var{Name: v.Name, Value: v.Value, Code: v.Code})
	}
	for _, lib := range o.Libs {
		rel := path.Clean(strings.TrimLeft(lib, "/"))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return job, fmt.Errorf("jsonnet lib %q resolved to outside repository root", lib)
		}
		job.JPaths = append(job.JPaths, path.Join(jsonnetRoot, rel))
	}
	return job, nil
}

// repoFile serves the evaluator the files of the repository tree: paths
// outside it (which Argo CD would look up on the repo-server's own disk)
// are never found.
func repoFile(fsys fs.FS) func(rel string) (bool, []byte, error) {
	return func(rel string) (bool, []byte, error) {
		st, err := fs.Stat(fsys, rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false, nil, nil
		case err != nil:
			return false, nil, err
		case st.IsDir():
			return false, nil, fmt.Errorf("read %s: is a directory", rel)
		}
		data, err := fs.ReadFile(fsys, rel)
		return err == nil, data, err
	}
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
	ctx   context.Context // nil: never cancelled
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
