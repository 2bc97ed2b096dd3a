package syncready

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// The schema of built-in kinds is the structured-merge-diff schema that
// client-go (and apiextensions-apiserver, for CustomResourceDefinitions)
// embed for server-side apply: generated from the OpenAPI of the
// Kubernetes release the module is cut from (client-go v0.37.1 is
// Kubernetes 1.37), kept as JSON in schema/ (see schemadata.go) and
// decoded once per process, on first use.

// FieldIssue is one field the API server's strict field validation
// refuses. It never holds the field's value: the object may be a Secret.
type FieldIssue struct {
	Rule string // RuleSchemaUnknownField, RuleSchemaType or RuleSchemaDuplicateField
	// Path names the field as the API server does:
	// spec.template.spec.containers[0].imagePullPolcy.
	Path string
	// Want and Got are the schema's type and the value's, for
	// RuleSchemaType ("integer", "string", "object", ...).
	Want, Got string
}

func (f FieldIssue) describe() string {
	switch f.Rule {
	case RuleSchemaType:
		return fmt.Sprintf("field %s must be %s, not %s", f.Path, article(f.Want), article(f.Got))
	case RuleSchemaDuplicateField:
		return fmt.Sprintf("field %s is given more than once (%s)", f.Path, f.Got)
	}
	return fmt.Sprintf("field %s is not in the schema", f.Path)
}

func article(t string) string {
	switch t {
	case "":
		return "a value"
	case "integer or string":
		return "an integer or a string"
	case "object", "array", "integer":
		return "an " + t
	case "null":
		return t
	}
	return "a " + t
}

type converters struct{ core, apiext managedfields.TypeConverter }

// builtinSchemas decodes the embedded schemas, once, when the checks
// first need them.
var builtinSchemas = sync.OnceValue(newConverters)

// builtinType is the schema of a built-in kind, or false when the
// embedded schemas do not have it (a custom resource, an apiVersion
// Kubernetes no longer serves).
func builtinType(apiVersion, kind string) (*smd.Schema, smd.TypeRef, bool) {
	if apiVersion == "" || kind == "" {
		return nil, smd.TypeRef{}, false
	}
	stub := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	c := builtinSchemas()
	for _, tc := range []managedfields.TypeConverter{c.core, c.apiext} {
		if tv, err := tc.ObjectToTyped(stub); err == nil {
			return tv.Schema(), tv.TypeRef(), true
		}
	}
	return nil, smd.TypeRef{}, false
}

// BuiltinIssues checks body against the schema of its built-in kind; ok
// is false when there is none.
func BuiltinIssues(body map[string]any) (issues []FieldIssue, ok bool) {
	apiVersion, _ := body["apiVersion"].(string)
	kind, _ := body["kind"].(string)
	s, tr, ok := builtinType(apiVersion, kind)
	if !ok {
		return nil, false
	}
	w := smdWalker{schema: s}
	w.walk(tr, body, "")
	return w.issues, true
}

// smdWalker checks a value against a structured-merge-diff schema as the
// API server's strict decoding does: a field the type does not declare
// is unknown, a scalar, list or map where another is declared is a wrong
// type. Paths index lists by position, as the server names them. It is
// ours rather than typed.FromUnstructured because that names associative
// list items by key and quotes the value in its messages.
type smdWalker struct {
	schema *smd.Schema
	issues []FieldIssue
}

func (w *smdWalker) walk(tr smd.TypeRef, v any, path string) {
	if v == nil {
		return // null is accepted for any field (and dropped)
	}
	atom, ok := w.schema.Resolve(tr)
	if !ok {
		return
	}
	got := jsonType(v)
	switch {
	case got == "object" && atom.Map != nil:
		w.walkMap(atom.Map, v.(map[string]any), path)
	case got == "array" && atom.List != nil:
		for i, e := range v.([]any) {
			w.walk(atom.List.ElementType, e, path+"["+strconv.Itoa(i)+"]")
		}
	case got != "object" && got != "array" && atom.Scalar != nil:
		if want := scalarWant(*atom.Scalar); !scalarFits(*atom.Scalar, got) {
			w.issues = append(w.issues, FieldIssue{Rule: RuleSchemaType, Path: path, Want: want, Got: got})
		}
	default:
		w.issues = append(w.issues, FieldIssue{Rule: RuleSchemaType, Path: path, Want: atomWant(atom), Got: got})
	}
}

func (w *smdWalker) walkMap(m *smd.Map, obj map[string]any, path string) {
	for _, k := range sortedKeys(obj) {
		p := join(path, k)
		if f, ok := m.FindField(k); ok {
			w.walk(f.Type, obj[k], p)
		} else if (m.ElementType != smd.TypeRef{}) {
			w.walk(m.ElementType, obj[k], p)
		} else {
			w.issues = append(w.issues, FieldIssue{Rule: RuleSchemaUnknownField, Path: p})
		}
	}
}

func scalarWant(s smd.Scalar) string {
	switch s {
	case smd.Numeric:
		return "number"
	case smd.String:
		return "string"
	case smd.Boolean:
		return "boolean"
	}
	return "scalar"
}

func scalarFits(s smd.Scalar, got string) bool {
	switch s {
	case smd.Numeric:
		return got == "integer" || got == "number"
	case smd.String:
		return got == "string"
	case smd.Boolean:
		return got == "boolean"
	}
	return true // untyped: int-or-string, quantities
}

func atomWant(a smd.Atom) string {
	switch {
	case a.Map != nil:
		return "object"
	case a.List != nil:
		return "array"
	case a.Scalar != nil:
		return scalarWant(*a.Scalar)
	}
	return ""
}

// jsonType names a decoded YAML value's type as JSON Schema does.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string, []byte:
		return "string"
	case bool:
		return "boolean"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "integer"
	case float64:
		// Argo CD sends JSON, where a YAML 2.0 is written 2: an integer
		if t := v.(float64); t == math.Trunc(t) && !math.IsInf(t, 0) {
			return "integer"
		}
		return "number"
	case float32:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
