package diff

import (
	"strings"
	"testing"
)

// FuzzParse checks that arbitrary bytes never panic Parse, and that whatever
// parses can be diffed and serialised.
func FuzzParse(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"))
	f.Add([]byte("---\n# Source: x\n--- {kind: List, items: [{kind: A, metadata: {name: b}}]}\n...\n"))
	f.Add([]byte("kind: Secret\nstringData: {pw: &p X}\nmetadata: {name: s, annotations: {c: *p, *p : 1}}\n"))
	f.Add([]byte("kind: List\nitems: [{kind: List, items: [{kind: Secret, metadata: {name: &n a}, data: {k: *n}}]}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := Parse(data, "ns")
		if err != nil {
			if strings.Contains(err.Error(), "\n\n") {
				t.Errorf("multi-paragraph error: %q", err)
			}
			return
		}
		for _, r := range rs {
			// a name may be missing, as Argo CD takes such objects
			if r.Kind == "" {
				t.Fatalf("resource without kind: %+v", r)
			}
		}
		Resources(nil, rs, rs, Options{Ignore: []string{"metadata.labels.a.b", "*"}})
		for _, d := range Resources(rs, nil, nil, Options{}) {
			if strings.Contains(d.Diff, taintPrefix) || strings.Contains(d.Key(), taintPrefix) {
				t.Fatalf("taint marker reached the output:\n%q", d.Diff)
			}
		}
	})
}
