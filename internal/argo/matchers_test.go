package argo

import (
	"regexp"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/equiv"
)

// manifestFileRE is the expression isManifestFile replaces.
var manifestFileRE = regexp.MustCompile(`\.(yaml|yml|json|jsonnet)$`)

var manifestFileCases = []string{
	"", ".", "yaml", ".yaml", "a.yaml", "a.yml", "a.json", "a.jsonnet", "a.libsonnet", "a.YAML", "a.Yaml", "a.yaml.bak",
	"a.yaml\n", "a.yaml ", "a.ya", "a.yam", "a.jso", "a.jsonne", "ayaml", "a_yaml", "a.yaml.yml", "a..json",
	"a.\xffyaml", "a.yamlé", "dir/a.yaml", "a.json.jsonnet", "a.jsonnet.txt", "a.xyml", "a.ymlx",
}

var manifestFilePair = equiv.Pair[bool]{Name: "isManifestFile", Got: isManifestFile, Want: manifestFileRE.MatchString}

// TestIsManifestFileEqualsRegexp: the suffix test says what the
// expression it replaces said, on the edge cases; the fuzz target goes on
// from them.
func TestIsManifestFileEqualsRegexp(t *testing.T) { manifestFilePair.Table(t, manifestFileCases) }

func FuzzIsManifestFileMatchesRegexp(f *testing.F) { manifestFilePair.Fuzz(f, manifestFileCases) }
