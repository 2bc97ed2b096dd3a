// Package plainyaml decodes yaml.v3 nodes of the plain shapes real
// manifests have into Go values by walking them, without yaml.v3's
// reflection, which costs several times more. Each function reports false
// wherever yaml.v3's decoder could do anything but the obvious (null list
// items, a number where a string is expected, tags, merge keys, a repeated
// key, a wrong kind): its caller then decodes with yaml.v3 (see Decode),
// so results and errors stay yaml.v3's. Where a function reports true,
// yaml.v3 decodes the node into the same value without error (the fuzz
// targets of its users check their walks).
package plainyaml

import "go.yaml.in/yaml/v3"

// Mapping calls set for every key and value of n, in order, when n
// is a mapping yaml.v3 decodes into a struct or map without a word. It
// reports false when n is not such a mapping or a set call fails.
func Mapping(n *yaml.Node, set func(k string, v *yaml.Node) bool) bool {
	if n.Kind != yaml.MappingNode || n.ShortTag() != "!!map" || len(n.Content)%2 != 0 {
		return false
	}
	c := n.Content
	for i := 0; i < len(c); i += 2 {
		k := c[i]
		if !IsStr(k) || k.Value == "<<" {
			return false
		}
		for j := 0; j < i; j += 2 {
			if c[j].Value == k.Value {
				return false // yaml.v3 reports the repeated key
			}
		}
	}
	for i := 0; i < len(c); i += 2 {
		if !set(c[i].Value, c[i+1]) {
			return false
		}
	}
	return true
}

// plainStr reports a scalar yaml.v3 decodes into a string as its text.
func IsStr(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str"
}

// Null reports a null scalar, which yaml.v3 decodes into a struct
// field as the field's zero value (the fields are fresh here).
func Null(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!null" {
		return false
	}
	switch n.Value {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// String decodes a string field.
func String(n *yaml.Node, out *string) bool {
	if Null(n) {
		return true
	}
	if !IsStr(n) {
		return false
	}
	*out = n.Value
	return true
}

// Bool decodes a bool field.
func Bool(n *yaml.Node, out *bool) bool {
	if Null(n) {
		return true
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return false
	}
	switch n.Value {
	case "true", "True", "TRUE":
		*out = true
	case "false", "False", "FALSE":
		*out = false
	default:
		return false
	}
	return true
}

// Strings decodes a []string field: yaml.v3 makes an empty list a
// non-nil empty slice.
func Strings(n *yaml.Node, out *[]string) bool {
	return Seq(n, out, func(c *yaml.Node, s *string) bool {
		if !IsStr(c) {
			return false
		}
		*s = c.Value
		return true
	})
}

// BoolPtr decodes a *bool field: null leaves it nil, anything else
// points it at a fresh bool.
func BoolPtr(n *yaml.Node, out **bool) bool {
	if Null(n) {
		*out = nil
		return true
	}
	*out = new(bool)
	return Bool(n, *out)
}

// StringMap decodes a map[string]string field.
func StringMap(n *yaml.Node, out *map[string]string) bool {
	if Null(n) {
		*out = nil
		return true
	}
	m := make(map[string]string, len(n.Content)/2)
	ok := Mapping(n, func(k string, v *yaml.Node) bool {
		if !IsStr(v) {
			return false
		}
		m[k] = v.Value
		return true
	})
	if ok {
		*out = m
	}
	return ok
}

// Nodes decodes a []yaml.Node field: each item is copied as it is.
func Nodes(n *yaml.Node, out *[]yaml.Node) bool {
	return Seq(n, out, func(c *yaml.Node, s *yaml.Node) bool {
		*s = *c
		return true
	})
}

// Seq decodes a list field, each item by item into a fresh T: null
// makes it nil, an empty list a non-nil empty slice, as yaml.v3 does.
// out is set only when every item decodes.
func Seq[T any](n *yaml.Node, out *[]T, item func(c *yaml.Node, p *T) bool) bool {
	if Null(n) {
		*out = nil
		return true
	}
	if n.Kind != yaml.SequenceNode || n.ShortTag() != "!!seq" {
		return false
	}
	s := make([]T, len(n.Content))
	for i, c := range n.Content {
		if !item(c, &s[i]) {
			return false
		}
	}
	*out = s
	return true
}

// List decodes a list of structs: set reads each key of an item's
// mapping into the item. An item that is not a plain mapping (null
// included) makes the walk give up.
func List[T any](n *yaml.Node, out *[]T, set func(p *T, k string, v *yaml.Node) bool) bool {
	return Seq(n, out, func(c *yaml.Node, p *T) bool {
		return Mapping(c, func(k string, v *yaml.Node) bool { return set(p, k, v) })
	})
}

// Key decodes a struct field of which only key is read, by set.
func Key(n *yaml.Node, key string, set func(v *yaml.Node) bool) bool {
	return Struct(n, func(k string, v *yaml.Node) bool { return k != key || set(v) })
}

// Struct decodes a struct field (null leaves it zero).
func Struct(n *yaml.Node, set func(k string, v *yaml.Node) bool) bool {
	return Null(n) || Mapping(n, set)
}

// Decode decodes n into v with walk, or with yaml.v3 when walk gives
// up (v is reset first, so nothing of the walk is left in it). An absent
// or null node (Tag !!null) leaves v empty.
func Decode[T any](n *yaml.Node, v *T, walk func(*yaml.Node, *T) bool) error {
	if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if walk(n, v) {
		return nil
	}
	var zero T
	*v = zero
	return n.Decode(v)
}
