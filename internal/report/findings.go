package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/syncready"
)

// FindingGroup is one app's sync-readiness findings (App "" for an env's
// own), in the order Report.Findings lists them.
type FindingGroup struct {
	Env, App string
	Findings []syncready.Finding
}

// WillNotSync splits the errors and warnings of r.Findings into those the
// head revision adds and those base already had, each grouped by env and
// app. Info findings are left to the JSON report.
func (r Report) WillNotSync() (fresh, old []FindingGroup) {
	for _, f := range r.Findings {
		if f.Severity != syncready.SeverityError && f.Severity != syncready.SeverityWarning {
			continue
		}
		if f.Preexisting {
			old = addFinding(old, f)
		} else {
			fresh = addFinding(fresh, f)
		}
	}
	return fresh, old
}

// addFinding appends f to its app's group; findings come sorted by
// severity first, so an app's group is looked up, not only the last one.
func addFinding(gs []FindingGroup, f syncready.Finding) []FindingGroup {
	for i := range gs {
		if gs[i].Env == f.Env && gs[i].App == f.App {
			gs[i].Findings = append(gs[i].Findings, f)
			return gs
		}
	}
	return append(gs, FindingGroup{Env: f.Env, App: f.App, Findings: []syncready.Finding{f}})
}

// FindingCounts is "2 errors, 1 warning" over groups.
func FindingCounts(gs []FindingGroup) string {
	var errs, warns int
	for _, g := range gs {
		for _, f := range g.Findings {
			if f.Severity == syncready.SeverityError {
				errs++
			} else {
				warns++
			}
		}
	}
	var parts []string
	if errs > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", errs, plural(errs, "error", "errors")))
	}
	if warns > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", warns, plural(warns, "warning", "warnings")))
	}
	return strings.Join(parts, ", ")
}

// FindingObject names a finding's object as "apps/v1 Deployment ns/name",
// or "" for an app-level finding.
func FindingObject(f syncready.Finding) string {
	if f.Kind == "" {
		return ""
	}
	name := f.Name
	if f.Namespace != "" {
		name = f.Namespace + "/" + name
	}
	return f.APIVersion + " " + f.Kind + " " + name
}

// FindingApp is "env/app", or "env" for an env's own finding.
func FindingApp(env, app string) string {
	if app == "" {
		return env
	}
	return env + "/" + app
}

// writeWillNotSync puts the findings the merge request adds at the top of
// the note, errors first; those base already had follow, folded.
func writeWillNotSync(b *bytes.Buffer, r Report) {
	fresh, old := r.WillNotSync()
	if len(fresh) > 0 {
		fmt.Fprintf(b, "### :no_entry: Will not sync: %s\n\n", FindingCounts(fresh))
		b.WriteString("What Argo CD would refuse or break when this change is synced, found offline:\n\n")
		writeFindingList(b, fresh)
		b.WriteString("\n")
	}
	if len(old) > 0 {
		fmt.Fprintf(b, "<details><summary>Already on the target branch: %s</summary>\n\n", htmlText(FindingCounts(old)))
		writeFindingList(b, old)
		b.WriteString("\n</details>\n\n")
	}
}

func writeFindingList(b *bytes.Buffer, gs []FindingGroup) {
	for _, g := range gs {
		fmt.Fprintf(b, "- **%s**\n", escape(FindingApp(g.Env, g.App)))
		for _, f := range g.Findings {
			obj := ""
			if o := FindingObject(f); o != "" {
				obj = " " + code(o) + ":"
			}
			fmt.Fprintf(b, "  - %s %s%s %s\n", severityMark(f.Severity), code(f.Rule), obj, escape(f.Message))
		}
	}
}

func severityMark(s string) string {
	if s == syncready.SeverityError {
		return ":x:"
	}
	return ":warning:"
}

// writeWillNotSyncTerminal is the same section for the terminal diff.
func writeWillNotSyncTerminal(b *bytes.Buffer, p painter, r Report) {
	fresh, old := r.WillNotSync()
	if len(fresh) > 0 {
		fmt.Fprintf(b, "%s\n", p.paint(ansiBold+ansiRed, "Will not sync: "+FindingCounts(fresh)))
		for _, g := range fresh {
			for _, f := range g.Findings {
				fmt.Fprintf(b, "  %s\n", terminalLine(syncLine(f)))
			}
		}
	}
	if len(old) > 0 {
		fmt.Fprintf(b, "Already on the target branch: %s\n", FindingCounts(old))
	}
}

// syncLine is one sync-readiness finding on one line.
func syncLine(f syncready.Finding) string {
	s := f.Severity + " " + f.Rule + " " + FindingApp(f.Env, f.App)
	if o := FindingObject(f); o != "" {
		s += " " + o
	}
	return s + ": " + f.Message
}

// maskSyncFindings masks what a finding quotes of the repository.
func maskSyncFindings(fs []syncready.Finding, mask func(string) string) {
	for i := range fs {
		f := &fs[i]
		f.Env, f.App, f.Namespace, f.Name, f.Message = mask(f.Env), mask(f.App), mask(f.Namespace), mask(f.Name), mask(f.Message)
	}
}
