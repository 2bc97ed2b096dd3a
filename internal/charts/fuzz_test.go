package charts

import (
	"strings"
	"testing"
)

// FuzzParseIndex feeds arbitrary bytes to the index.yaml parser, which
// reads whatever a repository (or a proxy's error page) sends.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nentries:\n  a:\n  - version: 1.0.0\n    urls: [a-1.0.0.tgz]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := parseIndex(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if idx.APIVersion == "" {
			t.Fatal("accepted an index without apiVersion")
		}
		for name, entries := range idx.Entries {
			for _, e := range entries {
				if e.Version == "" {
					t.Fatalf("chart %q kept an entry without a version", name)
				}
			}
			// Whatever parsed must be usable by the look-ups.
			vs := make([]string, len(entries))
			for i, e := range entries {
				vs[i] = e.Version
			}
			sorted := sortVersions(vs)
			if len(sorted) != len(vs) {
				t.Fatalf("sortVersions lost versions")
			}
			nearest(sorted, "1.2.3", nearestCount)
		}
	})
}
