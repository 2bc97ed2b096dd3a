package promote

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// maxProblems caps the problems listed per env in text and markdown.
const maxProblems = 5

// Markers in the component grid.
const (
	markPending = "*" // the previous env holds other values
	markDrift   = "!" // a Helm source pins another revision
	markReject  = "†" // a rejected value (promote reject)
)

// cell is a component's values in one env: "3.1.0 v2.1.0*".
func (cv ComponentValue) cell() string {
	if cv.Missing {
		return "-"
	}
	s := cv.ChartVersion
	if cv.ImageTag != "" {
		s = strings.TrimSpace(s + " " + cv.ImageTag)
	}
	if s == "" {
		s = "?"
	}
	if cv.Pending {
		s += markPending
	}
	if cv.Drift {
		s += markDrift
	}
	if len(cv.Rejected) > 0 {
		s += markReject
	}
	return s
}

func (es EnvStatus) last() string {
	if es.LastPromotion == nil {
		return "-"
	}
	return es.LastPromotion.String()
}

// overrides are the gates overridden by the last promotion.
func (es EnvStatus) overrides() []string {
	if es.LastPromotion == nil {
		return nil
	}
	var out []string
	for _, o := range es.LastPromotion.Overrides {
		out = append(out, overrideText(o))
	}
	return out
}

// lastMarkdown is the last promotion's cell, with its gate overrides.
func (es EnvStatus) lastMarkdown() string {
	s := mdEscape(es.last())
	for _, o := range es.overrides() {
		s += "<br>⚠️ gate overridden: " + mdEscape(mdText(o))
	}
	return s
}

// rollbackMarkdown is the last rollback's cell, its reason as free text.
func (es EnvStatus) rollbackMarkdown() string {
	if es.LastRollback == nil {
		return "–"
	}
	return "↩️ " + mdEscape(mdText(es.LastRollback.String()))
}

func (es EnvStatus) health() string {
	if es.Health == nil {
		return "-"
	}
	return es.Health.Summary()
}

func (es EnvStatus) window() string {
	if es.Window == nil {
		return "-"
	}
	return es.Window.Summary
}

// WriteStatusTable writes the view for a terminal.
func WriteStatusTable(w io.Writer, v *StatusView) error {
	fmt.Fprintf(w, "status at %s (%s)\n\n", shortSHA(v.Head), v.Now.UTC().Format("2006-01-02 15:04 MST"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"COMPONENT"}
	for _, es := range v.Envs {
		head = append(head, strings.ToUpper(es.Env))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, row := range v.Components {
		cells := []string{row.Component}
		for _, cv := range row.Envs {
			cells = append(cells, cv.cell())
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "(%s the previous env holds other values: pending promotion; %s a Helm source pins another chart version; %s a rejected value)\n\n",
		markPending, markDrift, markReject)
	for _, es := range v.Envs {
		fmt.Fprintf(w, "%s (%d apps)\n", es.Env, es.Apps)
		fmt.Fprintf(w, "  last promotion: %s\n", es.last())
		for _, o := range es.overrides() {
			fmt.Fprintf(w, "    gate overridden: %s\n", o)
		}
		if es.LastRollback != nil {
			fmt.Fprintf(w, "  last rollback:  %s\n", es.LastRollback)
		}
		if es.Health != nil {
			fmt.Fprintf(w, "  health:         %s\n", es.health())
			for i, p := range es.Health.Problems {
				if i == maxProblems {
					fmt.Fprintf(w, "    and %d more (-o json lists them all)\n", len(es.Health.Problems)-maxProblems)
					break
				}
				fmt.Fprintf(w, "    %s\n", p.Message)
			}
		}
		fmt.Fprintf(w, "  sync window:    %s\n", es.window())
		for _, d := range es.Drift {
			fmt.Fprintf(w, "  drift:          %s:%d %s targetRevision %s, versions say %s\n", d.File, d.Line, d.Chart, d.Revision, d.Versions)
		}
		for _, e := range es.Errors {
			fmt.Fprintf(w, "  error:          %s\n", e)
		}
	}
	writePendingText(w, v.Pending)
	return nil
}

func writePendingText(w io.Writer, steps []PendingStep) {
	fmt.Fprintln(w, "\npending:")
	for _, s := range steps {
		switch {
		case s.Error != "":
			fmt.Fprintf(w, "  %s -> %s: cannot compare: %s\n", s.From, s.To, s.Error)
		case len(s.Changes) == 0:
			fmt.Fprintf(w, "  %s -> %s: nothing\n", s.From, s.To)
		default:
			fmt.Fprintf(w, "  %s -> %s: %s\n", s.From, s.To, changeList(s))
		}
	}
}

func changeList(s PendingStep) string {
	var items []string
	for _, c := range s.Changes {
		items = append(items, fmt.Sprintf("%s.%s %s -> %s", c.Component, c.Key, c.From, c.To))
	}
	return strings.Join(items, ", ")
}

// WriteStatusMarkdown writes the view for a merge request or a wiki page.
func WriteStatusMarkdown(w io.Writer, v *StatusView) error {
	fmt.Fprintf(w, "### Environments at `%s` (%s)\n\n", shortSHA(v.Head), v.Now.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprint(w, "| Component |")
	for _, es := range v.Envs {
		fmt.Fprintf(w, " %s |", es.Env)
	}
	fmt.Fprint(w, "\n|---|")
	for range v.Envs {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, row := range v.Components {
		fmt.Fprintf(w, "| `%s` |", row.Component)
		for _, cv := range row.Envs {
			fmt.Fprintf(w, " %s |", mdCell(cv))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n%s the previous env holds other values (pending promotion) · %s drift: a Helm source pins another chart version · %s a rejected value\n\n",
		"⏳", "⚠️", "⛔")
	fmt.Fprintln(w, "| Env | Apps | Last promotion | Last rollback | Health | Sync window |\n|---|---|---|---|---|---|")
	for _, es := range v.Envs {
		fmt.Fprintf(w, "| **%s** | %d | %s | %s | %s | %s |\n", es.Env, es.Apps, es.lastMarkdown(), es.rollbackMarkdown(),
			mdEscape(es.health()), mdEscape(es.window()))
	}
	var details []string
	for _, es := range v.Envs {
		if es.Health != nil {
			for i, p := range es.Health.Problems {
				if i == maxProblems {
					details = append(details, fmt.Sprintf("- %s: and %d more", es.Env, len(es.Health.Problems)-maxProblems))
					break
				}
				details = append(details, fmt.Sprintf("- %s: %s", es.Env, mdEscape(p.Message)))
			}
		}
		for _, d := range es.Drift {
			details = append(details, fmt.Sprintf("- %s: drift `%s:%d` %s targetRevision `%s`, versions say `%s`", es.Env, d.File, d.Line, d.Chart, d.Revision, d.Versions))
		}
		for _, e := range es.Errors {
			details = append(details, fmt.Sprintf("- %s: error: %s", es.Env, mdEscape(e)))
		}
	}
	if len(details) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(details, "\n"))
	}
	fmt.Fprintln(w, "\n**Pending**")
	for _, s := range v.Pending {
		switch {
		case s.Error != "":
			fmt.Fprintf(w, "- %s → %s: cannot compare: %s\n", s.From, s.To, mdEscape(s.Error))
		case len(s.Changes) == 0:
			fmt.Fprintf(w, "- %s → %s: nothing\n", s.From, s.To)
		default:
			fmt.Fprintf(w, "- %s → %s: %s\n", s.From, s.To, mdEscape(changeList(s)))
		}
	}
	return nil
}

func mdCell(cv ComponentValue) string {
	if cv.Missing {
		return "–"
	}
	s := "`" + cv.ChartVersion + "`"
	if cv.ImageTag != "" {
		s += " `" + cv.ImageTag + "`"
	}
	if cv.Pending {
		s += " ⏳"
	}
	if cv.Drift {
		s += " ⚠️"
	}
	if len(cv.Rejected) > 0 {
		s += " ⛔"
	}
	return s
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// mdText keeps a free text (an override's reason) from turning into markup
// or HTML in a table cell.
func mdText(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;", "`", "'", "*", `\*`, "_", `\_`, "[", `\[`).Replace(s)
}

// WriteStatusJSON writes the view as indented JSON (see docs/promote.md).
func WriteStatusJSON(w io.Writer, v *StatusView) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
