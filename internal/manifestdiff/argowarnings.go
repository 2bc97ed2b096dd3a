package manifestdiff

import (
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/kube"
)

// asArgoCDSyncs leaves in each side the objects Argo CD's controller
// compares and syncs (diff.DropExcluded, with the kinds kube.Excluded
// names), and returns the warnings it raises for the head revision's:
// the repeated objects first (diff.Warnings), then the excluded ones, in
// the order its controller finds them.
func asArgoCDSyncs(sides *[3][]diff.Resource) []string {
	warnings := diff.Warnings(sides[1])
	for i := range sides {
		var w []string
		sides[i], w = diff.DropExcluded(sides[i], kube.Excluded)
		if i == 1 {
			warnings = append(warnings, w...)
		}
	}
	return warnings
}
