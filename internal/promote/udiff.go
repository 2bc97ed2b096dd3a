package promote

import (
	"fmt"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// Diff is the unified diff of every changed file, exactly what a commit of
// the plan contains, in `git diff` form.
func (p *Plan) Diff() string {
	var b strings.Builder
	for _, f := range p.Files() {
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", f, f)
		b.WriteString(diff.Unified(string(p.Old[f]), string(p.New[f]), "a/"+f, "b/"+f, diff.DefaultContext))
	}
	return b.String()
}
