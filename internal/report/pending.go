package report

import (
	"bytes"
	"fmt"
	"strings"
)

// writePending says, above everything else, which trusted settings the
// merge request changes: the diff below was rendered with the target
// branch's values, so a reviewer must not read it as the new settings'
// effect. The names come from a fixed list (config.TrustedKeys), never
// from the repository.
func writePending(b *bytes.Buffer, r Report) {
	if len(r.PendingSettings) == 0 {
		return
	}
	fmt.Fprintf(b, "> :lock: **This merge request changes %s in `.promote.yaml`.** Only the target branch may set %s: "+
		"this diff was rendered with the target branch's %s, and the change takes effect after merge.\n\n",
		pendingList(r.PendingSettings), plural(len(r.PendingSettings), "this setting", "these settings"),
		plural(len(r.PendingSettings), "value", "values"))
}

// PendingSentence is the one-line form of the same fact, for stderr and
// the terminal.
func PendingSentence(keys []string) string {
	return fmt.Sprintf("this change sets %s in .promote.yaml: rendered with the target branch's %s, it takes effect after merge",
		strings.Join(keys, ", "), plural(len(keys), "value", "values"))
}

func pendingList(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = code(k)
	}
	return strings.Join(out, ", ")
}
