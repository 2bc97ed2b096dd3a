package argo

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Parameter override files the repo-server merges into a path source
// before it decides the source's type and renders it: the first for every
// app of the directory, the second for one app (by its instance name).
const (
	repoSourceFile = ".argocd-source.yaml"
	appSourceFile  = ".argocd-source-%s.yaml"
)

// applyOverrides merges the parameter override files of dir into the
// source node n, as the repo-server does: each file present (a directory
// of that name is skipped) is a JSON merge patch (RFC 7386) over the
// source, read as Kubernetes tooling reads YAML; what the result holds
// beyond the ApplicationSource type is dropped, a field of the wrong type
// is an error, and repoURL, path, chart and targetRevision (and ref and
// name, which only the controller reads) keep their values. It returns n
// unchanged when no file applies.
func applyOverrides(fsys fs.FS, dir, instance string, n *yaml.Node) (*yaml.Node, error) {
	files := []string{path.Join(dir, repoSourceFile)}
	if instance != "" {
		files = append(files, path.Join(dir, fmt.Sprintf(appSourceFile, instance)))
	}
	var merged any
	applied := false
	for _, f := range files {
		st, err := fs.Stat(fsys, f)
		switch {
		case errors.Is(err, fs.ErrNotExist) || (err == nil && st.IsDir()):
			continue
		case err != nil:
			return nil, err
		}
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		patch, err := unmarshal11(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if patch == nil {
			return nil, fmt.Errorf("%s: Invalid JSON Patch", f)
		}
		if !applied {
			// the source's own fields are typed: read as written
			var v any
			if err := n.Decode(&v); err != nil {
				return nil, err
			}
			merged, applied = jsonify(v), true
		}
		merged = jsonMergePatch(merged, patch)
		if merged, err = conform(merged, sourceSchema, ""); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	if !applied {
		return n, nil
	}
	out := merged.(map[string]any)
	var orig any
	_ = n.Decode(&orig)
	om, _ := jsonify(orig).(map[string]any)
	for _, k := range []string{"repoURL", "path", "chart", "targetRevision", "ref", "name"} {
		delete(out, k)
		if v, ok := om[k]; ok {
			out[k] = v
		}
	}
	var node yaml.Node
	if err := node.Encode(out); err != nil {
		return nil, err
	}
	setLine(&node, n.Line)
	return &node, nil
}

// jsonMergePatch is RFC 7386: a patch object updates an object key by key
// (null deletes), anything else replaces the target; nulls inside new
// values are pruned.
func jsonMergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return prune(patch)
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = jsonMergePatch(t[k], v)
	}
	return t
}

func prune(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			if x != nil {
				out[k] = prune(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = prune(x)
		}
		return out
	}
	return v
}

// schema describes a JSON value of Argo CD's ApplicationSource type, so
// that a merged source is read as encoding/json reads it into that type.
type schema struct {
	kind   byte // s string, b bool, i integer, x int or string, o object, l list, m map, a anything
	fields map[string]*schema
	elem   *schema // list element, map value
}

var (
	sString = &schema{kind: 's'}
	sBool   = &schema{kind: 'b'}
	sList   = &schema{kind: 'l', elem: sString}
	sMap    = &schema{kind: 'm', elem: sString}
	sJVars  = &schema{kind: 'l', elem: obj(map[string]*schema{"name": sString, "value": sString, "code": sBool})}
)

func obj(f map[string]*schema) *schema { return &schema{kind: 'o', fields: f} }

var sourceSchema = obj(map[string]*schema{
	"repoURL": sString, "path": sString, "targetRevision": sString, "chart": sString, "ref": sString,
	"name": sString, "tagPrefix": sString,
	"helm": obj(map[string]*schema{
		"valueFiles": sList, "releaseName": sString, "values": sString, "version": sString,
		"parameters":      {kind: 'l', elem: obj(map[string]*schema{"name": sString, "value": sString, "forceString": sBool})},
		"fileParameters":  {kind: 'l', elem: obj(map[string]*schema{"name": sString, "path": sString})},
		"passCredentials": sBool, "ignoreMissingValueFiles": sBool, "skipCrds": sBool, "valuesObject": {kind: 'a'},
		"namespace": sString, "kubeVersion": sString, "apiVersions": sList, "skipTests": sBool, "skipSchemaValidation": sBool,
	}),
	"directory": obj(map[string]*schema{
		"recurse": sBool, "exclude": sString, "include": sString, "disableExtensionFilter": sBool,
		"jsonnet": obj(map[string]*schema{"extVars": sJVars, "tlas": sJVars, "libs": sList}),
	}),
	"kustomize": obj(map[string]*schema{
		"namePrefix": sString, "nameSuffix": sString, "images": sList, "commonLabels": sMap, "version": sString,
		"commonAnnotations": sMap, "forceCommonLabels": sBool, "forceCommonAnnotations": sBool, "namespace": sString,
		"commonAnnotationsEnvsubst": sBool, "components": sList, "ignoreMissingComponents": sBool,
		"labelWithoutSelector": sBool, "kubeVersion": sString, "apiVersions": sList, "labelIncludeTemplates": sBool,
		"replicas": {kind: 'l', elem: obj(map[string]*schema{"name": sString, "count": {kind: 'x'}})},
		"patches": {kind: 'l', elem: obj(map[string]*schema{
			"path": sString, "patch": sString, "options": {kind: 'm', elem: sBool},
			"target": obj(map[string]*schema{"group": sString, "version": sString, "kind": sString, "name": sString,
				"namespace": sString, "annotationSelector": sString, "labelSelector": sString}),
		})},
	}),
	"plugin": obj(map[string]*schema{
		"name": sString,
		"env":  {kind: 'l', elem: obj(map[string]*schema{"name": sString, "value": sString})},
		"parameters": {kind: 'l', elem: obj(map[string]*schema{"name": sString, "string": sString,
			"map": sMap, "array": sList})},
	}),
})

// conform keeps what encoding/json would decode of v into the type s
// describes: unknown object keys are dropped (keys match case-insensitively
// when not exactly), nulls are zero values, and a value of the wrong type
// is an error naming the field.
func conform(v any, s *schema, at string) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := func(want string) error {
		return fmt.Errorf("json: cannot unmarshal %s into Go struct field %s of type %s", jsonType(v), strings.TrimPrefix(at, "."), want)
	}
	switch s.kind {
	case 'a':
		return v, nil
	case 's':
		if _, ok := v.(string); !ok {
			return nil, bad("string")
		}
	case 'b':
		if _, ok := v.(bool); !ok {
			return nil, bad("bool")
		}
	case 'x':
		if f, ok := v.(float64); ok && f == float64(int64(f)) {
			return v, nil
		}
		if _, ok := v.(string); !ok {
			return nil, bad("intstr.IntOrString")
		}
	case 'l':
		l, ok := v.([]any)
		if !ok {
			return nil, bad("[]" + elemType(s.elem))
		}
		out := make([]any, len(l))
		for i, x := range l {
			c, err := conform(x, s.elem, at)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case 'm', 'o':
		m, ok := v.(map[string]any)
		if !ok {
			return nil, bad("object")
		}
		out := map[string]any{}
		for k, x := range m {
			fs, name := s.elem, k
			if s.kind == 'o' {
				if fs, name = s.field(k); fs == nil {
					continue
				}
			}
			c, err := conform(x, fs, at+"."+name)
			if err != nil {
				return nil, err
			}
			if c != nil {
				out[name] = c
			}
		}
		return out, nil
	}
	return v, nil
}

// field finds an object's field by key: exactly, else ignoring case, as
// encoding/json matches struct fields.
func (s *schema) field(k string) (*schema, string) {
	if f, ok := s.fields[k]; ok {
		return f, k
	}
	for name, f := range s.fields {
		if strings.EqualFold(name, k) {
			return f, name
		}
	}
	return nil, ""
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func elemType(s *schema) string {
	switch s.kind {
	case 's':
		return "string"
	case 'o':
		return "struct"
	}
	return "value"
}
