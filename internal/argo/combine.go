package argo

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// matrixParams is the matrix generator: the cartesian product of its two
// children, where the second child is rendered with each parameter set of
// the first before it generates (so it may use them, e.g. a git files
// path built from a directory). With goTemplate the two sets are deep
// merged, the first child's values winning; otherwise both are flat
// strings and a key both set to different values is an error.
func (d *discovery) matrixParams(body *yaml.Node, r *renderer, level int) ([]map[string]any, error) {
	gens := yamlnode.Value(body, "generators")
	n := 0
	if gens != nil && gens.Kind == yaml.SequenceNode {
		n = len(gens.Content)
	}
	switch {
	case n < 2:
		return nil, errors.New("found less than two generators, Matrix support only two")
	case n > 2:
		return nil, errors.New("found more than two generators, Matrix support only two")
	}
	first, err := d.childParams(gens.Content[0], r, level, nil)
	if err != nil {
		return nil, fmt.Errorf("error failed to get params for first generator in matrix generator: %w", err)
	}
	var out []map[string]any
	for _, a := range first {
		second, err := d.childParams(gens.Content[1], r, level, a)
		if err != nil {
			return nil, fmt.Errorf("failed to get params for second generator in the matrix generator: %w", err)
		}
		for _, b := range second {
			if r.goTmpl {
				p := map[string]any{}
				deepMerge(p, b)
				deepMerge(p, a)
				out = append(out, p)
				continue
			}
			p, err := combineStrings(a, b)
			if err != nil {
				return nil, fmt.Errorf("failed to combine string maps with merging params for the matrix generator: %w", err)
			}
			out = append(out, p)
		}
		if len(out) > MaxGeneratedApps {
			return nil, fmt.Errorf("matrix generator: %w", errTooMany)
		}
	}
	return out, nil
}

// combineStrings joins two flat parameter sets as strings; a key both set
// to different values is an error.
func combineStrings(a, b map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range a {
		out[k] = fmt.Sprintf("%v", v)
	}
	for _, k := range sortedKeys(b) {
		v := fmt.Sprintf("%v", b[k])
		if cur, ok := out[k]; ok && cur != v {
			return nil, fmt.Errorf("found duplicate key %s with different value, a: %s ,b: %s", k, cur, v)
		}
		out[k] = v
	}
	return out, nil
}

// deepMerge merges src into dst the way Argo CD's mergo.Merge with
// override does on parameter maps: src wins on every key, a null in src
// sets null, and two mappings merge key by key (in place, as mergo does).
func deepMerge(dst, src map[string]any) {
	for k, v := range src {
		sm, srcMap := v.(map[string]any)
		dm, dstMap := dst[k].(map[string]any)
		if srcMap && dstMap && len(dm) > 0 {
			deepMerge(dm, sm)
			continue
		}
		dst[k] = v
	}
}

// mergeParams is the merge generator: the first child's parameter sets,
// each updated by the set of every later child that has the same values
// at mergeKeys (later children win; with goTemplate a deep merge). A set
// of a later child that matches no first-child set is dropped, and two
// sets of one child with the same key are an error.
func (d *discovery) mergeParams(body *yaml.Node, r *renderer, level int) ([]map[string]any, error) {
	gens := yamlnode.Value(body, "generators")
	if gens == nil || gens.Kind != yaml.SequenceNode || len(gens.Content) < 2 {
		return nil, errors.New("found less than two generators, Merge requires two or more")
	}
	var keys []string
	if err := decodeInto(yamlnode.Value(body, "mergeKeys"), &keys); err != nil {
		return nil, fmt.Errorf("merge generator mergeKeys: %w", err)
	}
	sets := make([][]map[string]any, len(gens.Content))
	for i, g := range gens.Content {
		p, err := d.childParams(g, r, level, nil)
		if err != nil {
			return nil, fmt.Errorf("error getting param sets from generators: error getting params from generator %d of %d: %w", i+1, len(gens.Content), err)
		}
		sets[i] = p
	}
	base, order, err := byMergeKey(keys, sets[0])
	if err != nil {
		return nil, err
	}
	for _, later := range sets[1:] {
		over, _, err := byMergeKey(keys, later)
		if err != nil {
			return nil, err
		}
		for k, p := range base {
			o, ok := over[k]
			switch {
			case !ok:
			case r.goTmpl:
				deepMerge(p, o)
			default:
				maps.Copy(p, o)
			}
		}
	}
	out := make([]map[string]any, 0, len(order))
	for _, k := range order {
		out = append(out, base[k])
	}
	return out, nil
}

// byMergeKey indexes parameter sets by the JSON of their values at keys
// (top-level keys: a dotted key names a flat parameter, never a nested
// one), in first-seen order.
func byMergeKey(keys []string, sets []map[string]any) (map[string]map[string]any, []string, error) {
	if len(keys) == 0 {
		return nil, nil, errors.New("error getting param sets by merge key: no merge keys were specified, Merge requires at least one")
	}
	out := make(map[string]map[string]any, len(sets))
	var order []string
	for _, p := range sets {
		k := map[string]any{}
		for _, mk := range keys {
			k[mk] = p[mk]
		}
		b, err := json.Marshal(k)
		if err != nil {
			return nil, nil, fmt.Errorf("error marshalling param set key json: %w", err)
		}
		if _, dup := out[string(b)]; dup {
			return nil, nil, fmt.Errorf("error getting param sets by merge key: the parameters from a generator were not unique by the given mergeKeys, Merge requires all param sets to be unique. Duplicate key was %s", b)
		}
		out[string(b)] = p
		order = append(order, string(b))
	}
	return out, order, nil
}

// interpolate renders a matrix's second child generator with a parameter
// set of the first, as Argo CD does before that child generates: every
// string, map keys included, with the ApplicationSet's options, except a
// generator's values, which are resolved with missingkey=error and kept
// as written where a key is missing, so that they can still use the
// child's own parameters afterwards.
func (r *renderer) interpolate(body *yaml.Node, kind string, params map[string]any) (*yaml.Node, error) {
	n := copyNode(body)
	var values *yaml.Node
	if kind != "list" && kind != "matrix" && kind != "merge" {
		values = yamlnode.Value(n, "values")
	}
	if err := r.renderTreeExcept(n, params, values); err != nil {
		return nil, err
	}
	if values == nil || values.Kind != yaml.MappingNode {
		return n, nil
	}
	strict := r.withMissingKeyError()
	for i := 1; i < len(values.Content); i += 2 {
		v := values.Content[i]
		if v.Kind != yaml.ScalarNode {
			continue
		}
		s, err := strict.replace(v.Value, params)
		switch {
		case err != nil && isMissingKey(err):
		case err != nil:
			return nil, fmt.Errorf("failed to pre-resolve Values key %q: %w", values.Content[i-1].Value, err)
		default:
			v.Value = s
		}
	}
	return n, nil
}
