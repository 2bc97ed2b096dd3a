package charts

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
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

// FuzzDecodeIndexEqualsUnmarshal proves the blockyaml fast path of
// decodeIndex decodes what yaml.Unmarshal decodes, with the same error.
func FuzzDecodeIndexEqualsUnmarshal(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nentries:\n  a:\n  - version: 1.0.0\n    urls: [a-1.0.0.tgz]\n",
		"apiVersion: v1\nentries:\n  a:\n  - version: 1.0\n    digest: abc\n    urls:\n    - a-1.0.tgz\n  - name: a\n  b: []\n",
		"apiVersion: v1\nentries:\n  a:\n  - version: 1.0.0\n  a:\n  - version: 2.0.0\n",
		"apiVersion: v1\nentries: x\n",
		"---\napiVersion: v1\n---\napiVersion: v2\n",
		"# only a comment\n",
		"",
		"<html><body>Not Found</body></html>",
		"apiVersion: v1\ngenerated: \"2026-11-23T00:00:00Z\"\nentries:\n  a:\n  - version: '1.0.0'\n    created: 2026-11-23T00:00:00Z\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow index
		ferr := decodeIndex(data, &fast)
		serr := yaml.Unmarshal(data, &slow)
		if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
			t.Fatalf("errors differ: decodeIndex %v, yaml.Unmarshal %v", ferr, serr)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("decoded index differs (-yaml.Unmarshal +decodeIndex):\n%s", diff)
		}
	})
}
