package syncready

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// CRD is a CustomResourceDefinition the env's custom resources are judged
// by: rendered by one of its apps, or found in the repository.
type CRD struct {
	Name, Group, Kind string
	// Versions maps each served version to its openAPIV3Schema (nil:
	// none, anything goes).
	Versions map[string]map[string]any
	// PreserveUnknown is v1beta1's spec.preserveUnknownFields: nothing is
	// pruned, so no field is unknown.
	PreserveUnknown bool
	// Source says where it comes from, for messages: "app x
	// (templates/crd.yaml)" or "crds/widget.yaml:3".
	Source string
}

// ReadCRD reads a CustomResourceDefinition object; false when body is
// not one or names no group and kind.
func ReadCRD(body map[string]any, source string) (CRD, bool) {
	if body["kind"] != "CustomResourceDefinition" || !strings.HasPrefix(str(body["apiVersion"]), "apiextensions.k8s.io/") {
		return CRD{}, false
	}
	spec, _ := body["spec"].(map[string]any)
	names, _ := spec["names"].(map[string]any)
	meta, _ := body["metadata"].(map[string]any)
	c := CRD{Name: str(meta["name"]), Group: str(spec["group"]), Kind: str(names["kind"]), Versions: map[string]map[string]any{}, Source: source}
	if c.Group == "" || c.Kind == "" {
		return CRD{}, false
	}
	c.PreserveUnknown, _ = spec["preserveUnknownFields"].(bool)
	top := openAPI(spec["validation"]) // v1beta1: one schema for every version
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if served, ok := vm["served"].(bool); ok && !served {
			continue
		}
		s := openAPI(vm["schema"])
		if s == nil {
			s = top
		}
		c.Versions[str(vm["name"])] = s
	}
	if v := str(spec["version"]); v != "" && len(versions) == 0 {
		c.Versions[v] = top
	}
	return c, true
}

func openAPI(v any) map[string]any {
	m, _ := v.(map[string]any)
	s, _ := m["openAPIV3Schema"].(map[string]any)
	return s
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// CRDIssues checks a custom resource against crd's schema for its
// version as the API server does with strict field validation: what
// pruning would drop is an unknown field, a value of another type than
// the schema's is a wrong type. ok is false when crd does not serve the
// version.
func CRDIssues(crd CRD, version string, body map[string]any) (issues []FieldIssue, ok bool) {
	s, ok := crd.Versions[version]
	if !ok {
		return nil, false
	}
	w := crdWalker{preserve: crd.PreserveUnknown || s == nil}
	w.resource(s, body, "")
	return w.issues, true
}

type crdWalker struct {
	preserve bool
	issues   []FieldIssue
}

// resource walks an object of a kind (the custom resource itself, or an
// x-kubernetes-embedded-resource): apiVersion, kind and metadata are
// always allowed, and metadata is an ObjectMeta.
func (w *crdWalker) resource(s map[string]any, obj map[string]any, path string) {
	rest := make(map[string]any, len(obj))
	for k, v := range obj {
		switch k {
		case "apiVersion", "kind":
			if _, ok := v.(string); !ok && v != nil {
				w.issues = append(w.issues, FieldIssue{Rule: RuleSchemaType, Path: join(path, k), Want: "string", Got: jsonType(v)})
			}
		case "metadata":
			w.metadata(v, join(path, k))
		default:
			rest[k] = v
		}
	}
	w.object(s, rest, path)
}

func (w *crdWalker) metadata(v any, path string) {
	sch, _, ok := builtinType("v1", "ConfigMap")
	if !ok {
		return
	}
	sw := smdWalker{schema: sch}
	sw.walk(smd.TypeRef{NamedType: ptr("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")}, v, path)
	w.issues = append(w.issues, sw.issues...)
}

func ptr(s string) *string { return &s }

func (w *crdWalker) walk(s map[string]any, v any, path string) {
	if v == nil || s == nil {
		return // null is pruned or kept, never refused for its type
	}
	if b, _ := s["x-kubernetes-embedded-resource"].(bool); b {
		if m, ok := v.(map[string]any); ok {
			w.resource(s, m, path)
			return
		}
	}
	got := jsonType(v)
	if b, _ := s["x-kubernetes-int-or-string"].(bool); b {
		if got != "integer" && got != "string" {
			w.issues = append(w.issues, FieldIssue{Rule: RuleSchemaType, Path: path, Want: "integer or string", Got: got})
		}
		return
	}
	want := str(s["type"])
	switch {
	case want == "":
		if got == "object" {
			w.object(s, v.(map[string]any), path)
		}
	case !typeFits(want, got):
		w.issues = append(w.issues, FieldIssue{Rule: RuleSchemaType, Path: path, Want: want, Got: got})
	case want == "object":
		w.object(s, v.(map[string]any), path)
	case want == "array":
		items, _ := s["items"].(map[string]any)
		for i, e := range v.([]any) {
			w.walk(items, e, path+"["+strconv.Itoa(i)+"]")
		}
	}
}

func typeFits(want, got string) bool {
	return want == got || want == "number" && got == "integer"
}

// object walks a mapping: declared properties by their schema, others by
// additionalProperties; with neither, a field is pruned, hence unknown,
// unless x-kubernetes-preserve-unknown-fields keeps it.
func (w *crdWalker) object(s map[string]any, obj map[string]any, path string) {
	props, _ := s["properties"].(map[string]any)
	preserve, _ := s["x-kubernetes-preserve-unknown-fields"].(bool)
	for _, k := range sortedKeys(obj) {
		p := join(path, k)
		if ps, ok := props[k]; ok {
			sub, _ := ps.(map[string]any)
			w.walk(sub, obj[k], p)
			continue
		}
		switch ap := s["additionalProperties"].(type) {
		case map[string]any:
			w.walk(ap, obj[k], p)
			continue
		case bool:
			if ap {
				continue
			}
		}
		if !preserve && !w.preserve {
			w.issues = append(w.issues, FieldIssue{Rule: RuleSchemaUnknownField, Path: p})
		}
	}
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

func (c CRD) describe() string {
	return fmt.Sprintf("schema of CRD %s, %s", c.Name, c.Source)
}
