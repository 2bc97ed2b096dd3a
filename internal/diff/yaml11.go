package diff

import "go.yaml.in/yaml/v3"

// Argo CD reads rendered YAML with sigs.k8s.io/yaml, whose parser follows
// YAML 1.1: a plain (unquoted, untagged) y, yes, on, n, no, off in any of
// their spellings is a boolean, as a value and as a mapping key (where
// JSON makes it "true" or "false"). yaml.v3 follows YAML 1.2 and keeps
// them strings, so a chart's `enabled: yes` would show as the string Argo
// CD never sees: its objects hold `true` (and the API server then refuses
// a ConfigMap whose data is not a string). Every other scalar (octal,
// hexadecimal, underscores in numbers, timestamps, nulls) already reads
// the same in both.
var yaml11Bools = map[string]string{
	"y": "true", "Y": "true", "yes": "true", "Yes": "true", "YES": "true",
	"on": "true", "On": "true", "ON": "true",
	"n": "false", "N": "false", "no": "false", "No": "false", "NO": "false",
	"off": "false", "Off": "false", "OFF": "false",
}

// asYAML11 retags the plain YAML 1.1 booleans of n's tree as booleans. It
// runs after taint: a tainted copy of a Secret value is a marked string,
// which no spelling above matches, so it stays redacted.
func asYAML11(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Style == 0 && n.Tag == "!!str" {
		if b, ok := yaml11Bools[n.Value]; ok {
			n.Tag, n.Value = "!!bool", b
		}
	}
	for _, c := range n.Content {
		asYAML11(c)
	}
}
