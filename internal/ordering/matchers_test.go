package ordering

import (
	"regexp"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/equiv"
)

// manifestNameRE is the expression isManifestName replaces.
var manifestNameRE = regexp.MustCompile(`\.(yaml|yml|json)$`)

var manifestNameCases = []string{
	"", ".", "yaml", ".yaml", "a.yaml", "a.yml", "a.json", "a.jsonnet", "a.YAML", "a.Yml", "a.yaml.bak",
	"a.yaml\n", "a.json ", "a.ya", "a.yam", "a.jso", "ayaml", "a_yml", "a.yaml.yml", "a..json",
	"a.\xffyaml", "a.ymlé", "dir/a.json", "a.xjson", "a.ymlx",
}

var manifestNamePair = equiv.Pair[bool]{Name: "isManifestName", Got: isManifestName, Want: manifestNameRE.MatchString}

// TestIsManifestNameEqualsRegexp: the suffix test says what the
// expression it replaces said, on the edge cases; the fuzz target goes on
// from them.
func TestIsManifestNameEqualsRegexp(t *testing.T) { manifestNamePair.Table(t, manifestNameCases) }

func FuzzIsManifestNameMatchesRegexp(f *testing.F) { manifestNamePair.Fuzz(f, manifestNameCases) }
