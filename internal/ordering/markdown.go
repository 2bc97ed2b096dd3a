package ordering

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Markdown writes inv as one section per environment: a table of every
// object in wave order, then one table per RollingSync ApplicationSet
// listing its steps and the apps each selects.
func Markdown(w io.Writer, inv *Inventory) error {
	return writeEnvs(w, inv, writeEnv)
}

// writeEnvs writes each environment of inv with env, a blank line
// between them; Markdown and Table differ only in env.
func writeEnvs(w io.Writer, inv *Inventory, env func(*bufio.Writer, *EnvInventory)) error {
	bw := bufio.NewWriter(w)
	for i := range inv.Envs {
		if i > 0 {
			bw.WriteString("\n")
		}
		env(bw, &inv.Envs[i])
	}
	return bw.Flush()
}

func writeEnv(w *bufio.Writer, e *EnvInventory) {
	fmt.Fprintf(w, "## %s\n\n", cell(e.Env))
	objs := e.Objects()
	if len(objs) == 0 {
		w.WriteString("No Applications or ApplicationSets.\n")
		return
	}
	w.WriteString("| Wave | Kind | Name | File | Notes | Generated apps |\n")
	w.WriteString("|---:|---|---|---|---|---|\n")
	for _, o := range objs {
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s |\n",
			o.Wave, o.Kind, cell(o.Name), cell(o.File), cell(notes(o)), cell(appList(o)))
	}
	for _, o := range objs {
		if o.RollingSync != nil {
			writeSteps(w, o)
		}
	}
}

// notes collects the markers a reader scans for: a defaulted or invalid
// wave, the root app, auto-sync and declared dependencies.
func notes(o *Object) string {
	var n []string
	switch {
	case o.Defaulted:
		n = append(n, "wave defaulted")
	case o.WaveText != "" && templated(o.WaveText):
		n = append(n, "wave templated "+strconv.Quote(o.WaveText))
	case o.WaveText != "":
		n = append(n, "wave invalid "+strconv.Quote(o.WaveText))
	}
	if o.Root {
		n = append(n, "root app-of-apps")
	}
	if o.Automated {
		n = append(n, "auto-sync")
	}
	if o.RollingSync != nil {
		n = append(n, "RollingSync")
	}
	if len(o.DependsOn) > 0 {
		n = append(n, "depends on "+strings.Join(o.DependsOn, ", "))
	}
	return strings.Join(n, "; ")
}

// appList names the generated apps, with a wave only where it differs
// from the ApplicationSet's (a templated or generator-specific wave).
func appList(o *Object) string {
	names := make([]string, len(o.Apps))
	for i, a := range o.Apps {
		names[i] = a.Name
		if a.Wave != o.Wave || a.WaveText != "" {
			names[i] += fmt.Sprintf(" (wave %d)", a.Wave)
		}
	}
	return strings.Join(names, ", ")
}

func writeSteps(w *bufio.Writer, o *Object) {
	fmt.Fprintf(w, "\n### %s RollingSync\n\n", cell(o.Name))
	w.WriteString("| Step | matchExpressions | maxUpdate | Apps |\n")
	w.WriteString("|---:|---|---|---|\n")
	for i, st := range o.RollingSync.Steps {
		maxUpdate, apps := stepText(&st)
		fmt.Fprintf(w, "| %d | %s | %s | %s |\n", i+1, cell(exprList(st.MatchExpressions)), cell(maxUpdate), cell(apps))
	}
}

// stepText is what a step's row says of its maxUpdate (all when unset)
// and of the apps it selects (or its error).
func stepText(st *Step) (maxUpdate, apps string) {
	apps = strings.Join(st.Apps, ", ")
	if st.Error != "" {
		apps = "error: " + st.Error
	} else if apps == "" {
		apps = "(none)"
	}
	maxUpdate = st.MaxUpdate
	if maxUpdate == "" {
		maxUpdate = "all"
	}
	return maxUpdate, apps
}

// cell keeps a value inside its table cell: pipes escaped, newlines folded.
func cell(s string) string {
	s = strings.ReplaceAll(s, `|`, `\|`)
	return strings.Join(strings.Fields(s), " ")
}
