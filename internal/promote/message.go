package promote

import (
	"fmt"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/history"
)

// Message is the commit message of a plan: a conventional subject that CI
// skips, one body line per change, and trailers a later job can parse.
func (p *Plan) Message(fromCommit string) string {
	var b strings.Builder
	if p.Reject != nil {
		return p.rejectMessage()
	}
	if p.Verb == "rollback" {
		fmt.Fprintf(&b, "chore(%s): roll back to %s [skip ci]\n\n", p.To, short(p.Rollback.To))
	} else if p.Verb == "pin" {
		var keys []string
		for _, r := range p.Rows {
			keys = append(keys, r.Component+"."+r.Key)
		}
		fmt.Fprintf(&b, "chore(%s): pin %s [skip ci]\n\n", p.To, strings.Join(unique(keys), ", "))
	} else {
		fmt.Fprintf(&b, "chore(%s): promote versions from %s [skip ci]\n\n", p.To, p.From)
	}
	for _, r := range p.Rows {
		fmt.Fprintf(&b, "- %s.%s: %s -> %s (%s)\n", r.Component, r.Key, r.From, r.To, strings.Join(r.Files, ", "))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "- note: %s\n", n.Message)
	}
	b.WriteString("\n")
	switch p.Verb {
	case "promote":
		fmt.Fprintf(&b, "Promoted-From: %s@%s\n", p.From, fromCommit)
	case "rollback":
		fmt.Fprintf(&b, "%s: %s\n", history.TrailerRolledBackTo, p.Rollback.To)
		fmt.Fprintf(&b, "%s: %s\n", history.TrailerRollbackReason, oneLine(p.Rollback.Reason))
		if len(p.Rollback.Forced) > 0 {
			fmt.Fprintf(&b, "%s: %s\n", history.TrailerFieldsForced, strings.Join(p.Rollback.Forced, ", "))
		}
	default:
		fmt.Fprintf(&b, "Pinned-On: %s\n", fromCommit)
	}
	fmt.Fprintf(&b, "Promote-Components: %s\n", strings.Join(p.Components(), ", "))
	if p.OrderingIgnored > 0 {
		fmt.Fprintf(&b, "Ordering-Ignored: %d finding(s), --ignore-ordering\n", p.OrderingIgnored)
	}
	if p.Gates != nil {
		for _, t := range p.Gates.Trailers() {
			b.WriteString(t + "\n")
		}
	}
	for _, o := range p.RejectedOverrides {
		fmt.Fprintf(&b, "%s: %s\n", TrailerRejectedOverridden, o)
	}
	return b.String()
}

// TrailerRejectedOverridden records a rejected value promoted anyway.
const TrailerRejectedOverridden = "Rejected-Overridden"

// rejectMessage is a reject's or unreject's: the entry and the reason.
func (p *Plan) rejectMessage() string {
	e := p.Reject
	if p.Verb == "unreject" {
		return fmt.Sprintf("chore(rejected): unreject %s [skip ci]\n\nUnrejected: %s\n", e.Key(), e.Key())
	}
	return fmt.Sprintf("chore(rejected): reject %s [skip ci]\n\nRejected: %s\nReject-Reason: %s\n", e.Key(), e.Key(), e.Reason)
}

func unique(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
