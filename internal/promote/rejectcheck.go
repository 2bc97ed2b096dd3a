package promote

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/rejected"
)

// RejectedPolicy refuses plans that put a rejected value (see promote
// reject) into an env, unless overridden with a reason, which the commit
// records in a Rejected-Overridden trailer.
type RejectedPolicy struct {
	Override string // the reason given to put rejected values in anyway
	User     string // who gave it
	// Who names who rejected an entry and when, for the refusal; nil
	// leaves it out.
	Who func(rejected.Entry) string
}

// Wrap checks every plan build returns against the rejected list of the
// tree it was planned on.
func (rp *RejectedPolicy) Wrap(build BuildFunc) BuildFunc {
	return func(target, source fs.FS) (*Plan, error) {
		p, err := build(target, source)
		if err != nil {
			return nil, err
		}
		return p, rp.Check(target, p)
	}
}

// Check refuses p when one of its versions-file edits sets a rejected
// value; with an override it records each one on p instead.
func (rp *RejectedPolicy) Check(fsys fs.FS, p *Plan) error {
	list, err := rejected.Read(fsys)
	if err != nil || len(list.Entries) == 0 {
		return err
	}
	var hits []rejected.Entry
	for _, e := range p.Edits {
		if e.Key == RevisionKey {
			continue // the chartVersion edit beside it is the one named
		}
		if r, ok := list.Find(e.Component, e.Key, e.New); ok {
			hits = append(hits, r)
		}
	}
	if len(hits) == 0 {
		return nil
	}
	if rp.Override != "" {
		p.RejectedOverrides = nil // a rebuild checks again
		for _, r := range hits {
			p.RejectedOverrides = append(p.RejectedOverrides, fmt.Sprintf("%s by %s: %s", r.Key(), rp.User, oneLine(rp.Override)))
		}
		return nil
	}
	var items []string
	for _, r := range hits {
		s := fmt.Sprintf("%s.%s %s is rejected (%s", r.Component, r.Field, r.Value, r.Reason)
		if rp.Who != nil {
			if who := rp.Who(r); who != "" {
				s += "; rejected by " + who
			}
		}
		items = append(items, s+")")
	}
	return fmt.Errorf("%s %s: %s: %w", p.Verb, p.To, strings.Join(items, "; "), rejected.ErrRejected)
}

// rejectedFindings are env's fields still holding a rejected value, for
// check; an unreadable rejected list is a finding too.
func rejectedFindings(fsys fs.FS, cfg *config.Config, env string) []Finding {
	list, err := rejected.Read(fsys)
	if err != nil {
		return []Finding{{Env: env, Rule: RuleRejectedVersion, File: rejected.Path, Message: oneLine(err.Error())}}
	}
	if len(list.Entries) == 0 {
		return nil
	}
	vf, err := readVersions(fsys, cfg, env)
	if err != nil {
		return nil // reported as versions-unreadable
	}
	var out []Finding
	for _, c := range vf.Components {
		for _, f := range c.Fields {
			if r, ok := list.Find(c.Key, f.Key, f.Value); ok {
				out = append(out, Finding{Env: env, Rule: RuleRejectedVersion, File: vf.Path, Line: f.Line, Component: c.Key,
					Message: fmt.Sprintf("%s.%s is %s, which is rejected (%s): roll it back (promote rollback --env %s)", c.Key, f.Key, f.Value, r.Reason, env)})
			}
		}
	}
	return out
}
