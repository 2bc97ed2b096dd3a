package ordering

import (
	"regexp"
	"testing"
)

// manifestNameRE is the expression isManifestName replaces.
var manifestNameRE = regexp.MustCompile(`\.(yaml|yml|json)$`)

var manifestNameCases = []string{
	"", ".", "yaml", ".yaml", "a.yaml", "a.yml", "a.json", "a.jsonnet", "a.YAML", "a.Yml", "a.yaml.bak",
	"a.yaml\n", "a.json ", "a.ya", "a.yam", "a.jso", "ayaml", "a_yml", "a.yaml.yml", "a..json",
	"a.\xffyaml", "a.ymlé", "dir/a.json", "a.xjson", "a.ymlx",
}

func checkManifestName(t *testing.T, s string) {
	if got, want := isManifestName(s), manifestNameRE.MatchString(s); got != want {
		t.Fatalf("isManifestName(%q) = %v, the expression says %v", s, got, want)
	}
}

// TestIsManifestNameEqualsRegexp: the suffix test says what the
// expression it replaces said, on the edge cases; the fuzz target goes on
// from them.
func TestIsManifestNameEqualsRegexp(t *testing.T) {
	for _, s := range manifestNameCases {
		checkManifestName(t, s)
	}
}

func FuzzIsManifestNameMatchesRegexp(f *testing.F) {
	for _, s := range manifestNameCases {
		f.Add(s)
	}
	f.Fuzz(checkManifestName)
}
