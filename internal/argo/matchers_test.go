package argo

import (
	"regexp"
	"testing"
)

// manifestFileRE is the expression isManifestFile replaces.
var manifestFileRE = regexp.MustCompile(`\.(yaml|yml|json|jsonnet)$`)

var manifestFileCases = []string{
	"", ".", "yaml", ".yaml", "a.yaml", "a.yml", "a.json", "a.jsonnet", "a.libsonnet", "a.YAML", "a.Yaml", "a.yaml.bak",
	"a.yaml\n", "a.yaml ", "a.ya", "a.yam", "a.jso", "a.jsonne", "ayaml", "a_yaml", "a.yaml.yml", "a..json",
	"a.\xffyaml", "a.yamlé", "dir/a.yaml", "a.json.jsonnet", "a.jsonnet.txt", "a.xyml", "a.ymlx",
}

func checkManifestFile(t *testing.T, s string) {
	if got, want := isManifestFile(s), manifestFileRE.MatchString(s); got != want {
		t.Fatalf("isManifestFile(%q) = %v, the expression says %v", s, got, want)
	}
}

// TestIsManifestFileEqualsRegexp: the suffix test says what the
// expression it replaces said, on the edge cases; the fuzz target goes on
// from them.
func TestIsManifestFileEqualsRegexp(t *testing.T) {
	for _, s := range manifestFileCases {
		checkManifestFile(t, s)
	}
}

func FuzzIsManifestFileMatchesRegexp(f *testing.F) {
	for _, s := range manifestFileCases {
		f.Add(s)
	}
	f.Fuzz(checkManifestFile)
}
