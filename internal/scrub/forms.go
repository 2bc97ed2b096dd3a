package scrub

import (
	"regexp"
	"sync"
)

// The forms are compiled on first use, not at package init: scrubbing
// runs on errors, and promote, which links this package, pays for every
// expression compiled at init on every run (1M instructions, 166 KB here).
var compiledForms = sync.OnceValues(func() (positions, values []*regexp.Regexp) {
	return compileAll(positionForms...), compileAll(valueForms...)
})

// positionForms locate a problem without holding a value: Helm and Go
// template positions, YAML lines, schema pointers and the schema's own
// words. They stay readable: no quoted-span masking and no short-value
// masking inside them (long values are still masked there).
var positionForms = []string{
	`template: [^\s:"']+(?::\d+){1,2}:`,
	`executing "[^"]*" at <[.$\w]*>:`,
	// the action is the chart's own source, unless the template came from
	// tpl (named gotpl, made of values)
	`executing "[^"]*/templates/[^"]*" at <[^>\n]*>:`,
	`executing "[^"]*" at <`,
	`error calling \w+:`,
	// Helm's and sigs.k8s.io/yaml's own words, which hold common values
	// such as a log level "error"
	`error converting YAML to JSON:`,
	`error unmarshaling JSON:`,
	`while decoding JSON:`,
	`unable to parse YAML:`,
	`(?:execution|parse) error at \([^()\s]+\):(?: function "[^"]*" not defined)?`,
	// a chart that does not load: Chart.yaml and the package, no values
	`load chart: [^;]*`,
	// diff.Parse's document positions, and keys, which are names
	`document \d+ \(line \d+(?:, source [^()]*)?\)(?: item \d+)?`,
	`mapping key "[^"]*" already defined(?: at line \d+)?`,
	`key "[^"]*" is already defined(?: at line \d+)?`,
	`YAML parse error on [^\s:]+:`,
	`\bline \d+(?::\d+)?`,
	`- at '(?:[^'\\]|\\.)*':`,
	`value must be (?:one of )?'(?:[^'\\]|\\.)*'(?:, '(?:[^'\\]|\\.)*')*`,
	`(?:missing propert(?:y|ies)|additional properties|properties) '(?:[^'\\]|\\.)*'(?:, '(?:[^'\\]|\\.)*')*`,
	`does not match pattern '(?:[^'\\]|\\.)*'`,
}

// valueForms are messages known to quote a value, rendered content or an
// input line; the group "v" is always masked, whatever the Set holds.
var valueForms = []string{
	`unknown anchor '(?P<v>[^']*)' referenced`,
	"cannot (?:decode|unmarshal) !!\\w+ `(?P<v>[^`]*)`",
	`'(?P<v>(?:[^'\\]|\\.)*)' does not match pattern`,
	`'(?P<v>(?:[^'\\]|\\.)*)' is not valid [\w-]+`,
	`invalid literal source (?P<v>.*), expected key=value`,
	`invalid map key: (?P<v>.*)$`,
	`has invalid utf8 bytes : (?P<v>.*)$`,
	`cannot parse template "(?P<v>(?:[^"\\]|\\.)*)"`,
	`template: gotpl:\d+: function "(?P<v>[^"]*)" not defined`,
}

func compileAll(exprs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		out[i] = regexp.MustCompile(e)
	}
	return out
}

// knownForms returns the value slots to mask and the positions to keep.
func knownForms(msg string) (slots, positions []span) {
	positionREs, valueREs := compiledForms()
	for _, re := range positionREs {
		for _, m := range re.FindAllStringIndex(msg, -1) {
			positions = append(positions, span{m[0], m[1]})
		}
	}
	for _, re := range valueREs {
		v := re.SubexpIndex("v")
		for _, m := range re.FindAllStringSubmatchIndex(msg, -1) {
			if m[2*v] >= 0 && m[2*v+1] > m[2*v] {
				slots = append(slots, span{m[2*v], m[2*v+1]})
			}
		}
	}
	return slots, positions
}
