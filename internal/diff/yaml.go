package diff

import (
	"bytes"
	"fmt"
	"math"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// toYAML serialises obj with sorted keys and 2-space indentation. The
// encoder sorts map keys itself, so equal objects always give equal text.
func toYAML(obj map[string]any) (string, error) {
	if obj == nil {
		return "", nil
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(obj); err != nil {
		return "", fmt.Errorf("serialise resource: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("serialise resource: %w", err)
	}
	return b.String(), nil
}

// deepCopy copies the maps and slices Parse produces, so masking and
// redaction never touch the caller's objects.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// CopyObject is a deep copy of an object Parse (or a JSON or YAML
// decoder) produced: maps, slices and the values in them; nil for nil.
func CopyObject(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	return deepCopy(obj).(map[string]any)
}

// sameValue reports whether a and b, as Parse and prepare make them, are
// equal: then toYAML gives both the same text. It may say false of values
// that would serialise alike (1 and 1.0, a NaN): the caller then compares
// the text.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64:
		// bit for bit: 0 and -0 are equal numbers and different text
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case bool, int, int64, uint64, nil:
		return a == b
	}
	return reflect.DeepEqual(a, b) && reflect.TypeOf(a).Kind() != reflect.Float32
}
