package ordering

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Table writes inv as aligned plain-text tables for a terminal: per
// environment the objects in wave order, then each RollingSync's steps.
// It says what Markdown says, in columns instead of pipes.
func Table(w io.Writer, inv *Inventory) error {
	return writeEnvs(w, inv, writeEnvTable)
}

func writeEnvTable(w *bufio.Writer, e *EnvInventory) {
	fmt.Fprintf(w, "%s\n", e.Env)
	objs := e.Objects()
	if len(objs) == 0 {
		w.WriteString("  no Applications or ApplicationSets\n")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  WAVE\tKIND\tNAME\tFILE\tNOTES\tGENERATED APPS")
	for _, o := range objs {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\n", o.Wave, o.Kind, plain(o.Name), plain(o.File),
			dash(plain(notes(o))), dash(plain(appList(o))))
	}
	tw.Flush()
	for _, o := range objs {
		if o.RollingSync == nil {
			continue
		}
		fmt.Fprintf(w, "\n  %s RollingSync\n", plain(o.Name))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  STEP\tMATCH EXPRESSIONS\tMAX UPDATE\tAPPS")
		for i, st := range o.RollingSync.Steps {
			maxUpdate, apps := stepText(&st)
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", i+1, plain(exprList(st.MatchExpressions)), plain(maxUpdate), plain(apps))
		}
		tw.Flush()
	}
}

// plain keeps a value on its row: newlines and tabs folded.
func plain(s string) string { return strings.Join(strings.Fields(s), " ") }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
