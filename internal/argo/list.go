package argo

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// listParams reads list.elements and list.elementsYaml. Like Argo CD, the
// default template syntax only accepts string values (plus a "values"
// map of strings), while goTemplate takes elements as they are.
func listParams(n *yaml.Node, goTmpl bool) ([]map[string]any, error) {
	var l struct {
		Elements     yaml.Node `yaml:"elements"`
		ElementsYaml string    `yaml:"elementsYaml"`
	}
	if err := n.Decode(&l); err != nil {
		return nil, fmt.Errorf("list generator: %w", err)
	}
	elems, err := decode11(&l.Elements)
	if err != nil {
		return nil, fmt.Errorf("list generator: %w", err)
	}
	list, ok := elems.([]any)
	if !ok && elems != nil {
		return nil, fmt.Errorf("list generator: elements must be a list")
	}
	var out []map[string]any
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("list generator element %d is not an object", i)
		}
		if goTmpl {
			out = append(out, m)
			continue
		}
		p, err := stringParams(m)
		if err != nil {
			return nil, fmt.Errorf("list generator element %d: %w", i, err)
		}
		out = append(out, p)
	}
	// elementsYaml items are taken as they are, whatever the syntax: the
	// default one then substitutes only their top-level strings.
	if l.ElementsYaml != "" {
		v, err := unmarshal11([]byte(l.ElementsYaml))
		if err != nil {
			return nil, fmt.Errorf("list generator elementsYaml: %w", err)
		}
		more, ok := v.([]any)
		if !ok && v != nil {
			return nil, fmt.Errorf("list generator elementsYaml: must be a list")
		}
		for i, e := range more {
			m, ok := e.(map[string]any)
			if !ok && e != nil {
				return nil, fmt.Errorf("list generator elementsYaml item %d is not an object", i)
			}
			if m == nil {
				m = map[string]any{}
			}
			out = append(out, m)
		}
	}
	return out, nil
}

func stringParams(m map[string]any) (map[string]any, error) {
	p := map[string]any{}
	for k, v := range m {
		if k == "values" {
			vals, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("values is not a map")
			}
			for vk, vv := range vals {
				s, ok := vv.(string)
				if !ok {
					return nil, fmt.Errorf("values.%s is not a string", vk)
				}
				p["values."+vk] = s
			}
			continue
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s is not a string", k)
		}
		p[k] = s
	}
	return p, nil
}

// jsonify converts a yaml-decoded value to the types encoding/json would
// give, as Argo CD sees generator data after a JSON round trip: numbers
// become float64 and map keys strings. It matters for how numbers print.
func jsonify(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = jsonify(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[fmt.Sprint(k)] = jsonify(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = jsonify(x)
		}
		return out
	case int:
		return float64(t)
	case int64:
		return float64(t)
	case uint64:
		return float64(t)
	}
	return v
}

// flatten turns nested data into the dotted string parameters the default
// template syntax uses ("a.b", "list.0"), printing leaves with %v.
func flatten(m map[string]any) map[string]any {
	out := map[string]any{}
	flattenTo("", m, func(k, v string) { out[k] = v })
	return out
}

// flattenTo walks v as Argo CD flattens parameters, for both the default
// template syntax and generator selectors: nested mappings and lists
// become dotted keys under prefix ("a.b", "list.0"), empty ones vanish,
// and every other value (a list of strings such as path.segments
// included) is set printed with %v. Keys are walked in order, so where
// two paths flatten to one key the same one wins every time.
func flattenTo(prefix string, v any, set func(k, v string)) {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			flattenTo(join(prefix, k), t[k], set)
		}
	case map[string]string:
		for k, x := range t {
			set(join(prefix, k), x)
		}
	case []any:
		for i, x := range t {
			flattenTo(join(prefix, strconv.Itoa(i)), x, set)
		}
	default:
		set(prefix, fmt.Sprintf("%v", v))
	}
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}
