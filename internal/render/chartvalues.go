package render

import (
	"encoding/json"
	"fmt"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// A chart's own defaults are input values too. Its values.yaml (and each
// subchart's, at any depth) is coalesced under the app's values, so a template's fail or required,
// a schema violation or a YAML error of the rendered output can print
// them like any other value. An in-repository chart's defaults are
// written by whoever wrote the merge request; a fetched chart's may hold
// the credentials its publisher left there. Either way they are masked
// in errors as the app's value files are.

// addChartDefaults registers every default of ch and its dependencies.
func addChartDefaults(s *scrub.Set, ch *chart.Chart) {
	addChartDefaultsDepth(s, ch, 0)
}

func addChartDefaultsDepth(s *scrub.Set, ch *chart.Chart, depth int) {
	if ch == nil || depth > 32 {
		return
	}
	found := false
	for _, f := range ch.Raw {
		if f != nil && f.Name == "values.yaml" {
			s.AddYAML(f.Data)
			found = true
		}
	}
	if !found && len(ch.Values) > 0 {
		// a chart built without its raw files: its parsed defaults
		if data, err := json.Marshal(ch.Values); err == nil {
			s.AddYAML(data)
		}
	}
	if len(ch.Schema) > 0 {
		var schema any
		if json.Unmarshal(ch.Schema, &schema) == nil {
			addSchemaDefaults(s, schema, 0)
		}
	}
	for _, dep := range ch.Dependencies() {
		addChartDefaultsDepth(s, dep, depth+1)
	}
}

// addSchemaDefaults registers the "default" values of a JSON schema at
// any depth. Helm 3 (v3.22 here) and 4 only validate with the schema and apply no
// default to the values; a default is registered all the same, as the
// chart's author's value, should a version apply them. Enums and consts
// are not: a schema message lists them as the rule broken, and masking
// them would hide what the rule is.
func addSchemaDefaults(s *scrub.Set, node any, depth int) {
	if depth > 1000 {
		return
	}
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if k == "default" {
				addAny(s, v, depth+1)
			} else {
				addSchemaDefaults(s, v, depth+1)
			}
		}
	case []any:
		for _, v := range n {
			addSchemaDefaults(s, v, depth+1)
		}
	}
}

// addAny registers the scalars of a decoded JSON value.
func addAny(s *scrub.Set, v any, depth int) {
	if depth > 1000 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			addAny(s, e, depth+1)
		}
	case []any:
		for _, e := range x {
			addAny(s, e, depth+1)
		}
	case string:
		s.Add(x)
	case nil, bool:
	default:
		s.Add(fmt.Sprint(x))
	}
}

// chartOf is the chart req renders, loaded with Helm 3's loader (from the
// cache for an archive), for a renderer that did not load one (Helm 4,
// a render that failed before loading it); nil when it does not load.
// Only called on failure.
func chartOf(req Request) (ch *chart.Chart) {
	defer func() {
		if recover() != nil {
			ch = nil // a chart Helm 3 cannot read: its defaults stay unknown
		}
	}()
	if len(req.Chart) == 0 && req.ChartDir == "" {
		return nil
	}
	ch, err := loadChart3(req)
	if err != nil {
		return nil
	}
	return ch
}
