package syncready

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// DuplicateIssues lists every key a document's mappings repeat, with its
// path, as the API server's strict field validation names duplicated
// fields of a request body. Aliases are not followed (their target is
// checked where it is defined); only scalar keys are compared. It is the
// check for callers holding a document as written; a rendered document
// reaches the checks with each key's last value, and RepeatIssue names
// what it repeated.
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

// RepeatIssue is the finding of a key a rendered document gives count
// times in one mapping, rendered from source (a template or file path,
// or ""). Argo CD reads manifests leniently and applies the last value,
// so the API server never sees the repeat and the sync goes through; the
// finding says which value the cluster gets, as a reader of the template
// sees the first.
func RepeatIssue(path, source string, count int) FieldIssue {
	times := strconv.Itoa(count) + " times"
	if count == 2 {
		times = "twice"
	}
	if source != "" {
		times += " in " + source
	}
	return FieldIssue{Rule: RuleSchemaDuplicateField, Path: path, Got: times + "; Argo CD applies the last"}
}
