package promote

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/history"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

var (
	// ErrNothingToRollBack marks an env with no promotion to undo in the
	// history read.
	ErrNothingToRollBack = errors.New("nothing to roll back")
	// ErrForeignFields marks fields someone else changed since the
	// rollback point: a rollback would silently revert their change.
	ErrForeignFields = errors.New("fields changed by someone else since the rollback point")
)

// RollbackRequest restores one env's values to a point in its history.
type RollbackRequest struct {
	Env string
	// To is the commit whose values are restored; zero: before the
	// Steps-th newest promotion or pin (1 when Steps is 0).
	To          plumbing.Hash
	Steps       int
	Only        []string
	Reason      string
	ForceFields bool
	// ChartRepository is PromoteRequest's.
	ChartRepository func(repoURL string)
}

// Rollback is a resolved rollback: the values to restore, read once from
// history, and what they undo. Its Build plans them on any commit, so a
// rejected push is rebuilt on the new tip like a promotion.
type Rollback struct {
	Env    string
	Point  plumbing.Hash
	Undone []history.Entry // promote's commits after Point, newest first
	Forced []string        // fields changed by others, restored under --force-fields
	Reason string
	sets   []fieldSet
	req    RollbackRequest
}

// RollbackInfo is what a rollback plan's commit records in its trailers.
type RollbackInfo struct {
	To     string
	Reason string
	Forced []string
}

// ResolveRollback finds the rollback point in env's first-parent history
// from head and the values to restore: every in-scope field that differs
// between the point and head. A field a commit other than promote's
// changed since the point is refused, naming it, the commit and its
// author, unless req.ForceFields.
func ResolveRollback(repo *git.Repo, cfg *config.Config, head plumbing.Hash, req RollbackRequest) (*Rollback, error) {
	entries, err := history.Read(repo, cfg, req.Env, head, history.DefaultLimit)
	if err != nil {
		return nil, err
	}
	point, err := rollbackPoint(repo, head, entries, req)
	if err != nil {
		return nil, err
	}
	path := cfg.VersionsPath(req.Env)
	then, err := repo.ReadFile(point, path)
	if err != nil {
		return nil, fmt.Errorf("reading %s at the rollback point %s: %w", path, short(point.String()), err)
	}
	old, err := versions.Read(path, then, cfg.Components)
	if err != nil {
		return nil, fmt.Errorf("at the rollback point %s: %w", short(point.String()), err)
	}
	if err := versions.CheckOnly(old, req.Only); err != nil {
		return nil, err
	}
	now, err := repo.ReadFile(head, path)
	if err != nil {
		return nil, err
	}
	current := history.Values(cfg, path, now)
	rb := &Rollback{Env: req.Env, Point: point, Reason: req.Reason, req: req}
	after, err := entriesAfter(repo, head, point, entries)
	if err != nil {
		return nil, err
	}
	var foreign []string
	for _, comp := range cfg.Components {
		c, _ := old.Component(comp.Key)
		if !c.Found || (len(req.Only) > 0 && !slices.Contains(req.Only, comp.Key)) {
			continue
		}
		for _, f := range c.Fields {
			v, ok := current.Get(comp.Key, f.Key)
			if !ok {
				continue // gone since: nothing to restore it in
			}
			// Every field is set, also those already back: the plan is then
			// the same on any commit, and a re-run after a kill finds the
			// commit it left on HEAD to be exactly this rollback.
			set := fieldSet{comp: comp, key: f.Key, to: f.Value, tag: f.Tag}
			if v == f.Value {
				rb.sets = append(rb.sets, set)
				continue
			}
			if who := changedByOthers(after, comp.Key, f.Key); who != "" {
				if !req.ForceFields {
					foreign = append(foreign, who)
					continue
				}
				rb.Forced = append(rb.Forced, comp.Key+"."+f.Key)
			}
			rb.sets = append(rb.sets, set)
		}
	}
	if len(foreign) > 0 {
		return nil, fmt.Errorf("%s: %s: %w",
			req.Env, strings.Join(foreign, "; "), ErrForeignFields)
	}
	for _, e := range after {
		if e.Ours() {
			rb.Undone = append(rb.Undone, e)
		}
	}
	return rb, nil
}

// rollbackPoint is req.To, which must be on head's first-parent line, or
// the parent of the Steps-th newest promotion or pin of env.
func rollbackPoint(repo *git.Repo, head plumbing.Hash, entries []history.Entry, req RollbackRequest) (plumbing.Hash, error) {
	if !req.To.IsZero() {
		found := false
		err := repo.FirstParentLog(head, history.DefaultLimit, func(e git.LogEntry) bool {
			found = e.Hash == req.To
			return !found
		})
		if err != nil && !found {
			return plumbing.ZeroHash, fmt.Errorf("looking for %s in the history: %w", short(req.To.String()), err)
		}
		if !found {
			return plumbing.ZeroHash, fmt.Errorf("--to %s is not on the first-parent history of HEAD", short(req.To.String()))
		}
		return req.To, nil
	}
	steps := max(req.Steps, 1)
	n := 0
	for _, e := range entries {
		if e.Kind != history.KindPromote && e.Kind != history.KindPin {
			continue
		}
		if n++; n == steps {
			if e.Parent == "" {
				return plumbing.ZeroHash, fmt.Errorf("%s has no commit before %s: %w", req.Env, short(e.Commit), ErrNothingToRollBack)
			}
			return plumbing.NewHash(e.Parent), nil
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("%s has %d promotion(s) or pin(s) in the history read, --steps %d needs %d: %w",
		req.Env, n, steps, steps, ErrNothingToRollBack)
}

// entriesAfter are the entries of commits newer than point on head's
// first-parent line (entries are newest first).
func entriesAfter(repo *git.Repo, head, point plumbing.Hash, entries []history.Entry) ([]history.Entry, error) {
	newer := map[string]bool{}
	err := repo.FirstParentLog(head, history.DefaultLimit, func(e git.LogEntry) bool {
		if e.Hash == point {
			return false
		}
		newer[e.Hash.String()] = true
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("reading the history since %s: %w", short(point.String()), err)
	}
	var out []history.Entry
	for _, e := range entries {
		if newer[e.Commit] {
			out = append(out, e)
		}
	}
	return out, nil
}

// changedByOthers names the newest commit not written by promote that
// changed the field among after; "" when none did.
func changedByOthers(after []history.Entry, comp, key string) string {
	for _, e := range after {
		if e.Ours() {
			continue
		}
		for _, c := range e.Changes {
			if c.Component == comp && c.Key == key {
				return fmt.Sprintf("%s.%s was changed from %s to %s by %s <%s> in %s (%q)",
					comp, key, c.From, c.To, e.Author, e.Email, short(e.Commit), e.Subject)
			}
		}
	}
	return ""
}

// Build plans the rollback on the tree fsys (the target of a BuildFunc):
// the fields still differing there are set back, with every Helm
// targetRevision their chartVersions drive.
func (rb *Rollback) Build(fsys fs.FS, cfg *config.Config) (*Plan, error) {
	p := &Plan{Verb: "rollback", To: rb.Env, Only: rb.req.Only, chartRepository: rb.req.ChartRepository,
		Rollback: &RollbackInfo{To: rb.Point.String(), Reason: rb.Reason, Forced: rb.Forced}}
	if err := build(fsys, cfg, rb.Env, rb.sets, p); err != nil {
		return nil, err
	}
	return p, nil
}
