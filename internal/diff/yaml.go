package diff

import (
	"bytes"
	"fmt"

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
