package syncready

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// DuplicateIssues lists every key a document's mappings repeat, with its
// path, as the API server's strict field validation names duplicated
// fields of a request body. Aliases are not followed (their target is
// checked where it is defined); only scalar keys are compared.
//
// manifestdiff never gets here with a rendered document: its parser
// refuses a repeated key as the app's error (see docs/manifestdiff.md),
// because Argo CD would apply the last value while the file reads as the
// first. The check is for callers holding a document as written.
func DuplicateIssues(doc *yaml.Node) []FieldIssue {
	var out []FieldIssue
	duplicates(doc, "", &out)
	return out
}

func duplicates(n *yaml.Node, path string, out *[]FieldIssue) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			duplicates(c, path, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			duplicates(c, path+"["+strconv.Itoa(i)+"]", out)
		}
	case yaml.MappingNode:
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			p := join(path, k.Value)
			if line, ok := first[k.Value]; ok {
				*out = append(*out, FieldIssue{Rule: RuleSchemaDuplicateField, Path: p,
					Got: fmt.Sprintf("lines %d and %d", line, k.Line)})
				continue
			}
			first[k.Value] = k.Line
			duplicates(n.Content[i+1], p, out)
		}
	}
}
