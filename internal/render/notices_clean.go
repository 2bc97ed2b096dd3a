package render

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// valueSlot is where Helm's coalescing quotes the value it drops
// ("destination for a.b is a table. Ignoring non-table value (VALUE)",
// "cannot overwrite table with non table for a.b (VALUE)"), in Helm 3
// and Helm 4 alike.
var valueSlot = regexp.MustCompile(`((?:Ignoring non-table value|cannot overwrite table with non table for \S+) )\(.*\)`)

// maskValues hides, in a library's notice, the value slots Helm's
// messages are known to have, and every input value of the render of
// four characters or more: a notice may be a warning about a Secret's
// value. A word (up to six letters: "debug", "table") is hidden only as a
// whole word, shorter values and true, false and null only in the known
// slots, so that "3" does not blank every line number nor "data" every
// message about a data key.
// TODO(render-robust): use internal/scrub's Set (branch trust-leaks) once
// it is on main; it also catches encoded forms.
func maskValues(text string, values []string) string {
	text = valueSlot.ReplaceAllString(text, "${1}(***)")
	for _, v := range values {
		switch {
		case len(v) < 4 || v == "true" || v == "false" || v == "null":
		case isWord(v):
			text = wholeWord(v).ReplaceAllString(text, "${1}***")
		default:
			text = strings.ReplaceAll(text, v, "***")
		}
	}
	return text
}

var word = regexp.MustCompile(`^[A-Za-z]{1,6}$`)

func isWord(s string) bool { return word.MatchString(s) }

func wholeWord(w string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_./-])` + regexp.QuoteMeta(w) + `\b`)
}

// helmInputValues lists every scalar a Helm render is given, longest
// first (so a value containing another is masked whole).
func helmInputValues(req Request) []string {
	var out []string
	for _, f := range req.ValueFiles {
		out = appendScalars(out, f.Data)
	}
	out = appendScalars(out, req.Values)
	for _, p := range req.Parameters {
		out = append(out, p.Value)
		out = append(out, strings.FieldsFunc(strings.Trim(p.Value, "{}"), func(r rune) bool { return r == ',' })...)
	}
	for _, f := range req.FileParameters {
		out = append(out, string(f.Data), strings.TrimSpace(string(f.Data)))
	}
	return longestFirst(out)
}

// appendScalars adds the scalars of a YAML stream (every document, keys
// left out: they name, they do not hold), as written and as Go would
// print them ("1.50" is also "1.5").
func appendScalars(out []string, data []byte) []string {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var doc yaml.Node
		if dec.Decode(&doc) != nil {
			return out
		}
		out = appendNodeScalars(out, &doc)
	}
}

func appendNodeScalars(out []string, n *yaml.Node) []string {
	switch n.Kind {
	case yaml.ScalarNode:
		out = append(out, n.Value)
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			out = append(out, strconv.FormatFloat(f, 'g', -1, 64))
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			out = appendNodeScalars(out, n.Content[i])
		}
	default:
		for _, c := range n.Content {
			out = appendNodeScalars(out, c)
		}
	}
	return out
}

// jsonnetValues lists a jsonnet source's external variables and
// top-level arguments, which std.trace output may show.
func jsonnetValues(o *argo.JsonnetOptions) []string {
	var out []string
	for _, v := range append(append([]argo.JsonnetVar{}, o.ExtVars...), o.TLAs...) {
		out = append(out, v.Value)
	}
	return longestFirst(out)
}

func longestFirst(vs []string) []string {
	sort.SliceStable(vs, func(i, j int) bool { return len(vs[i]) > len(vs[j]) })
	return vs
}
