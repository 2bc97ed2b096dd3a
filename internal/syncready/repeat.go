package syncready

import (
	"strconv"
)

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
