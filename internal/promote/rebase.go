package promote

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/gitops-promote/gitops-promote/internal/patch"
)

// ErrConflict marks a field that someone else changed to a third value
// while our push was in flight.
var ErrConflict = errors.New("field changed concurrently")

// Rebase re-applies a plan's edits to another commit's tree as a
// compare-and-swap: each field must still hold its old value (it is
// edited) or already hold the new one (it is skipped); anything else is
// an ErrConflict naming the field.
func Rebase(old *Plan, fsys fs.FS) (*Plan, error) {
	if old.rebuild != nil {
		return old.rebuild(fsys)
	}
	p := &Plan{Verb: old.Verb, From: old.From, To: old.To, Only: old.Only, Notes: old.Notes, Charts: old.Charts, OrderingIgnored: old.OrderingIgnored,
		Rollback: old.Rollback, RejectedOverrides: old.RejectedOverrides, Gates: old.Gates, Old: map[string][]byte{}, New: map[string][]byte{}}
	for _, e := range old.Edits {
		f := p.parsed[e.File]
		if f == nil {
			data, err := fs.ReadFile(fsys, e.File)
			if err != nil {
				return nil, fmt.Errorf("%s: %s disappeared: %w", e.Field(), e.File, ErrConflict)
			}
			if f, err = patch.Parse(data); err != nil {
				if de := patch.InFile(e.File, err); de != nil {
					return nil, de // never edited, whoever wrote it
				}
				return nil, fmt.Errorf("%s: %w: %w", e.Field(), err, ErrConflict)
			}
			p.keep(e.File, f) // materialize edits the parsed file
		}
		t, err := locate(f, e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", e.Field(), err, ErrConflict)
		}
		switch t.Value {
		case e.New:
			continue
		case e.Old:
			e.target, e.Line = t, t.Line
			p.Edits = append(p.Edits, e)
		default:
			return nil, &ConflictError{Edit: e, Found: t.Value}
		}
	}
	if err := p.materialize(fsys); err != nil {
		return nil, err
	}
	return p, nil
}

// ConflictError says which field moved to what; callers that can read
// history fill Who, and Remote and Next once they know what the run did.
type ConflictError struct {
	Edit   Edit
	Found  string
	Who    string // author and commit that changed the field
	Remote string // "origin/main"
	Next   string // what was done about it, and what re-running will do
}

func (c *ConflictError) Error() string {
	where := c.Remote
	if where == "" {
		where = "the remote"
	}
	msg := fmt.Sprintf("%s is now %q on %s (expected %q or %q)", c.Edit.Field(), c.Found, where, c.Edit.Old, c.Edit.New)
	if c.Who != "" {
		msg += ", changed by " + c.Who
	}
	msg += ": " + ErrConflict.Error()
	if c.Next != "" {
		msg += "; " + c.Next
	}
	return msg
}

func (c *ConflictError) Unwrap() error { return ErrConflict }

// locate finds an edit's field in data, by key path for versions files and
// by document and source position (falling back to the app name) for
// Helm sources.
func locate(f *patch.File, e Edit) (patch.Target, error) {
	if e.Key != RevisionKey {
		return f.Find(e.KeyPath)
	}
	srcs, err := f.HelmSources()
	if err != nil {
		return patch.Target{}, err
	}
	var byChart []patch.HelmSource
	for _, s := range srcs {
		if s.Chart != e.Chart || !s.HasRevision {
			continue
		}
		if sourceID(s) == e.Source {
			return s.Revision, nil
		}
		byChart = append(byChart, s)
	}
	if len(byChart) == 1 {
		return byChart[0].Revision, nil
	}
	return patch.Target{}, fmt.Errorf("no single Helm source of chart %s in %s", e.Chart, e.File)
}
