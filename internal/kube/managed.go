package kube

import (
	"bytes"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/util/proto"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// trustManagers is Argo CD's managedFieldsManagers rule: where the render
// would change a field that one of the trusted managers owns live, the
// field is removed from both the live object and the render, so the
// manager's value stands and no difference shows. pt types the objects
// (lists merge by key); nil falls back to a deduced type, in which lists
// are atomic, as Argo CD falls back when the cluster's schema lacks the
// kind. live and want are not modified. removed is what was taken out:
// the dry run's result loses it too (see dropFields), as Argo CD's
// server-side diff reverts fields its manager does not own to the
// normalised live state.
func trustManagers(live, want map[string]any, managers []string, pt *typed.ParseableType) (l, w map[string]any, removed *fieldpath.Set, err error) {
	if len(managers) == 0 || live == nil || want == nil {
		return live, want, nil, nil
	}
	if pt == nil {
		pt = &typed.DeducedParseableType
	}
	tl, err := pt.FromUnstructured(live)
	if err != nil {
		return live, want, nil, nil // Argo CD leaves objects it cannot type alone
	}
	tw, err := pt.FromUnstructured(want)
	if err != nil {
		return live, want, nil, nil
	}
	cmp, err := tl.Compare(tw)
	if err != nil {
		return live, want, nil, nil
	}
	removed = &fieldpath.Set{}
	for _, mf := range (&unstructured.Unstructured{Object: live}).GetManagedFields() {
		if !slices.Contains(managers, mf.Manager) || mf.FieldsV1 == nil {
			continue
		}
		owned := &fieldpath.Set{}
		if err := owned.FromJSON(bytes.NewReader(mf.FieldsV1.Raw)); err != nil {
			return nil, nil, nil, fmt.Errorf("reading managedFields of %s: %w", mf.Manager, err)
		}
		removed = removed.Union(owned.Intersection(cmp.Modified))
	}
	if removed.Empty() {
		return live, want, nil, nil
	}
	if l, err = untyped(tl.RemoveItems(removed)); err != nil {
		return nil, nil, nil, err
	}
	if w, err = untyped(tw.RemoveItems(removed)); err != nil {
		return nil, nil, nil, err
	}
	return l, w, removed, nil
}

// dropFields removes fields from obj; an object that cannot be typed is
// returned as it is.
func dropFields(obj map[string]any, fields *fieldpath.Set, pt *typed.ParseableType) (map[string]any, error) {
	if fields == nil || fields.Empty() || obj == nil {
		return obj, nil
	}
	if pt == nil {
		pt = &typed.DeducedParseableType
	}
	tv, err := pt.FromUnstructured(obj)
	if err != nil {
		return obj, nil
	}
	return untyped(tv.RemoveItems(fields))
}

func untyped(tv *typed.TypedValue) (map[string]any, error) {
	m, ok := tv.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("managedFieldsManagers: object is not a mapping after normalisation")
	}
	return m, nil
}

// parseableType returns the cluster's schema for gvk, read once from its
// OpenAPI document, or nil when it has none for that kind.
func (s *Session) parseableType(gvk schema.GroupVersionKind) (*typed.ParseableType, error) {
	s.parserOnce.Do(func() {
		doc, err := s.c.disc.OpenAPISchema()
		if err != nil {
			if !apiError(err) {
				s.parserErr = s.c.transport(err)
			}
			return // no schema: deduced types, as Argo CD without one
		}
		models, err := proto.NewOpenAPIData(doc)
		if err != nil {
			return
		}
		s.parser, _ = managedfields.NewGVKParser(models, false)
	})
	if s.parserErr != nil || s.parser == nil {
		return nil, s.parserErr
	}
	return s.parser.Type(gvk), nil
}
