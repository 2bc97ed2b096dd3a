package promote

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// ErrSourceMoved marks a promotion refused because the source environment
// at the commit it reads differs from the remote branch's.
var ErrSourceMoved = errors.New("stale source environment")

// Source says where a promotion reads its source environment: one named
// commit, the same for --push and --merge-request, so that what was
// planned is what lands.
type Source struct {
	Config *config.Config
	Env    string
	Only   []string // components in scope; all when empty
	// Rev is the revision named with --source-rev; "" means HEAD. Only an
	// explicit Rev may promote values that differ from the remote
	// branch's source environment.
	Rev string
}

// sourceCommit resolves the source revision (HEAD by default) once, before
// anything is fetched: `--source-rev origin/main` names what the user last
// fetched, not what promote fetches.
func (a *Apply) sourceCommit(head plumbing.Hash) (plumbing.Hash, error) {
	if a.Source == nil || a.Source.Rev == "" {
		return head, nil
	}
	h, err := a.Repo.Resolve(a.Source.Rev)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("--source-rev: %w", err)
	}
	return h, nil
}

// buildOn plans against target's tree with the source environment read
// from source's tree.
func (a *Apply) buildOn(target, source plumbing.Hash, build BuildFunc) (*Plan, error) {
	tfs, err := a.Repo.TreeFS(target)
	if err != nil {
		return nil, err
	}
	sfs := tfs
	if source != target {
		if sfs, err = a.Repo.TreeFS(source); err != nil {
			return nil, err
		}
	}
	return build(tfs, sfs)
}

// SourceMismatchError lists the source environment's fields that differ
// between the source commit and the remote branch.
type SourceMismatchError struct {
	Env, Remote   string // "qa", "origin/main"
	Local, Tip    string // the two commits
	Fields        []string
	NothingPushed string // what was (not) done, for the message
	// Pending is the unpushed promotion commit an earlier run left on
	// HEAD, if that is what was refused: pulling cannot fast-forward it.
	Pending string
}

func (e *SourceMismatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at your HEAD (%s) differs from %s at %s (%s): %s; %s:\n",
		e.Env, short(e.Local), e.Env, e.Remote, short(e.Tip), ErrSourceMoved, e.NothingPushed)
	for _, f := range e.Fields {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	if e.Pending != "" {
		fmt.Fprintf(&b, "either drop the unpushed promotion %s (git reset --keep %s) and re-run to promote %s's values, or re-run with --source-rev HEAD to push it as it is",
			short(e.Pending), e.Remote, e.Remote)
		return b.String()
	}
	fmt.Fprintf(&b, "either pull (git pull --ff-only) and re-run to promote %s's values, or re-run with --source-rev HEAD to promote your local ones", e.Remote)
	return b.String()
}

func (e *SourceMismatchError) Unwrap() error { return ErrSourceMoved }

// checkSource refuses to push a promotion whose source environment, read
// at the implicit source (HEAD), differs from the remote tip's: the user
// planned with stale values. An explicit --source-rev is the user's call.
func (a *Apply) checkSource(src, tip plumbing.Hash, done string) error {
	if a.Source == nil || a.Source.Rev != "" || src == tip || tip.IsZero() {
		return nil
	}
	local, err := a.sourceValues(src)
	if err != nil {
		return err
	}
	remote, err := a.sourceValues(tip)
	if err != nil {
		return err
	}
	where := a.Remote + "/" + a.Branch
	var lines []string
	for _, k := range mergedKeys(local, remote) {
		l, r := local.get(k), remote.get(k)
		if l != r {
			lines = append(lines, fmt.Sprintf("%s: local %s, %s %s", k, l, where, r))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return &SourceMismatchError{Env: a.Source.Env, Remote: where, Local: src.String(), Tip: tip.String(), Fields: lines, NothingPushed: done}
}

// fieldValues are a versions file's in-scope fields in file order.
type fieldValues struct {
	keys   []string
	values map[string]string
}

func (f fieldValues) get(k string) string {
	if v, ok := f.values[k]; ok {
		return v
	}
	return "(missing)"
}

func mergedKeys(a, b fieldValues) []string {
	out := slices.Clone(a.keys)
	for _, k := range b.keys {
		if _, ok := a.values[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// sourceValues reads the source environment's in-scope fields at commit.
func (a *Apply) sourceValues(commit plumbing.Hash) (fieldValues, error) {
	fsys, err := a.Repo.TreeFS(commit)
	if err != nil {
		return fieldValues{}, err
	}
	return readSourceValues(fsys, a.Source.Config, a.Source.Env, a.Source.Only)
}

// readSourceValues reads env's fields of the components in only (all when
// empty) from fsys, "component.key" -> value.
func readSourceValues(fsys fs.FS, cfg *config.Config, env string, only []string) (fieldValues, error) {
	vf, err := readVersions(fsys, cfg, env)
	if err != nil {
		return fieldValues{}, err
	}
	out := fieldValues{values: map[string]string{}}
	for _, c := range vf.Components {
		if len(only) > 0 && !slices.Contains(only, c.Key) {
			continue
		}
		for _, f := range c.Fields {
			k := c.Key + "." + f.Key
			out.keys = append(out.keys, k)
			out.values[k] = f.Value
		}
	}
	return out, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
