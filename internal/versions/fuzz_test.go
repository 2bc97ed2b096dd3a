package versions

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzRead: any versions file reads or fails cleanly; a field read from
// it is found again by Lookup with the same value; and a file Read
// accepts has no duplicate key for yaml.v3's own check to find.
func FuzzRead(f *testing.F) {
	f.Add([]byte(prodYAML))
	f.Add([]byte(preprodYAML))
	f.Add([]byte("backup: {chartVersion: 1.0.0, imageTag: *x}\n"))
	f.Add([]byte("dlt-node:\n  backend: [1, 2]\n"))
	f.Add([]byte("backup:\n  imageTag: a\n  chartVersion: 1.0.0\n  imageTag: b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read("v.yaml", data, comps)
		if err != nil {
			return
		}
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil && strings.Contains(err.Error(), "already defined") {
			t.Fatalf("Read accepted a duplicate key: %v", err)
		}
		for i, c := range file.Components {
			for _, fld := range c.Fields {
				path := append(append([]string{}, comps[i].Path...), fld.Key)
				if v, ok := Lookup(data, path); ok && v != fld.Value {
					t.Fatalf("%v: Read says %q, Lookup says %q", path, fld.Value, v)
				}
			}
		}
	})
}

// FuzzCheckPinned never panics on any value.
func FuzzCheckPinned(f *testing.F) {
	for _, s := range []string{"1.2.3", "v1.2.3-rc.1+b", "latest", "^1", "1.x", "sha256:", ""} {
		f.Add("chartVersion", s)
		f.Add("imageTag", s)
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		_ = CheckPinned(key, value)
		_ = CheckUpgrade("c", value, key)
	})
}

// Lookup returns the scalar at keyPath in data's first document: the
// fuzz test's oracle for the fields Parse finds.
func Lookup(data []byte, keyPath []string) (string, bool) {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return "", false
	}
	n := lookup(doc.Content[0], keyPath)
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, true
}
