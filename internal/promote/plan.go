// Package promote holds one action per promote verb (plan/apply, pin,
// check, init): it turns a config and a repository tree into a Plan of
// byte-surgical edits, checks it against policy, and commits and pushes
// it. It never prints; callers render Results.
package promote

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/gates"
	"github.com/gitops-promote/gitops-promote/internal/patch"
	"github.com/gitops-promote/gitops-promote/internal/rejected"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

// RevisionKey names a Helm source's targetRevision in plans.
const RevisionKey = "targetRevision"

// Edit is one scalar a plan changes, with enough to find it again on
// another commit (the compare-and-swap of a retried push).
type Edit struct {
	File      string
	Component string
	Key       string   // versions field, or RevisionKey
	KeyPath   []string // versions edits: key path in the file
	Source    string   // revision edits: "doc N spec.sources[0]"
	Chart     string   // revision edits: the source's chart
	RepoURL   string   // revision edits: the source's chart repository
	Line      int
	Old, New  string
	Tag       string // YAML type of New when not a string
	target    patch.Target
}

// Field names the edited field for messages: "dlt-node.backend.chartVersion".
func (e Edit) Field() string {
	if e.Key == RevisionKey {
		return fmt.Sprintf("%s:%d %s (chart %s)", e.File, e.Line, RevisionKey, e.Chart)
	}
	return e.Component + "." + e.Key
}

// Row is one line of the plan table: a field moving, and every file it
// changes in.
type Row struct {
	Component string   `json:"component"`
	Key       string   `json:"key"`
	From      string   `json:"from"`
	To        string   `json:"to"`
	Files     []string `json:"files"`
}

// Note is something the plan deliberately leaves alone or repairs.
type Note struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// Plan is the complete, policy-checked set of edits of one promotion or pin.
type Plan struct {
	Verb   string // "promote", "pin" or "rollback"
	From   string // source env; "" for pin
	To     string
	Only   []string
	Edits  []Edit
	Rows   []Row
	Notes  []Note
	Old    map[string][]byte
	New    map[string][]byte
	Charts []ChartRef // chart versions the plan pins, to verify in their repositories
	// OrderingIgnored counts ordering findings overridden by --ignore-ordering.
	OrderingIgnored int
	// Gates is the gate report of a promotion (see Gate); nil when none ran.
	Gates *gates.Report
	// Rollback is what a rollback's commit records; nil for other verbs.
	Rollback *RollbackInfo
	// Reject is the entry a reject or unreject adds or removes.
	Reject *rejected.Entry
	// RejectedOverrides record rejected values put in anyway
	// ("ledger-node.api.chartVersion@1.4.0 by alice: reason").
	RejectedOverrides []string
	// rebuild, when set, plans the same change on another tree instead of
	// re-applying the edits (a whole-file change: the rejected list).
	rebuild func(fs.FS) (*Plan, error)
	// parsed keeps the files the plan located its edits in, so that
	// materialize edits them without parsing them again.
	parsed map[string]*patch.File
	// chartRepository is the request's hook (see PromoteRequest).
	chartRepository func(repoURL string)
	// read keeps each env's manifests as the plan parsed them.
	read map[string]manifestsRead
}

// ChartRef is a chart version that must exist before it is pinned.
type ChartRef struct{ RepoURL, Chart, Version string }

// Files lists the changed files, sorted.
func (p *Plan) Files() []string {
	out := make([]string, 0, len(p.New))
	for f := range p.New {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Components lists the components the plan touches, in first-edit order.
func (p *Plan) Components() []string {
	var out []string
	for _, e := range p.Edits {
		if !slices.Contains(out, e.Component) {
			out = append(out, e.Component)
		}
	}
	return out
}

// fieldSet is one desired value for a component field of the target env.
type fieldSet struct {
	comp config.Component
	key  string
	to   string
	tag  string
}

// build turns desired field values into edits on env's versions file and
// the targetRevision of every Helm source pinning a changed chart.
func build(fsys fs.FS, cfg *config.Config, env string, sets []fieldSet, p *Plan) error {
	vpath := cfg.VersionsPath(env)
	vdata, err := fs.ReadFile(fsys, vpath)
	if err != nil {
		return fmt.Errorf("reading %s: %w", vpath, err)
	}
	p.Old, p.New = map[string][]byte{}, map[string][]byte{}
	revisions := map[string]string{} // chart -> desired targetRevision
	paths := make([][]string, len(sets))
	for i, s := range sets {
		paths[i] = append(slices.Clone(s.comp.Path), s.key)
	}
	vfile, err := patch.Parse(vdata)
	if err != nil {
		return readErr(vpath, err)
	}
	p.keep(vpath, vfile)
	targets, err := vfile.FindAll(paths)
	if err != nil {
		// name the field: FindAll stops at the first it cannot find
		for i, s := range sets {
			if _, ferr := vfile.Find(paths[i]); ferr != nil {
				return fmt.Errorf("%s: %s.%s: %w", vpath, s.comp.Key, s.key, ferr)
			}
		}
		return fmt.Errorf("%s: %w", vpath, err)
	}
	for i, s := range sets {
		path, t := paths[i], targets[i]
		if s.key == versions.ChartVersionKey {
			revisions[s.comp.Chart] = s.to
		}
		if t.Value == s.to {
			continue
		}
		p.Edits = append(p.Edits, Edit{File: vpath, Component: s.comp.Key, Key: s.key, KeyPath: path,
			Line: t.Line, Old: t.Value, New: s.to, Tag: s.tag, target: t})
	}
	if err := planRevisions(fsys, cfg, env, revisions, p); err != nil {
		return err
	}
	return p.materialize(fsys)
}

// materialize applies the edits file by file; Apply re-parses each
// result and refuses any semantic change beyond the edited scalars.
func (p *Plan) materialize(fsys fs.FS) error {
	byFile := map[string][]patch.Change{}
	for _, e := range p.Edits {
		byFile[e.File] = append(byFile[e.File], patch.Change{Target: e.target, New: e.New, Tag: e.Tag})
	}
	for file, changes := range byFile {
		f := p.parsed[file]
		if f == nil {
			data, err := fs.ReadFile(fsys, file)
			if err != nil {
				return fmt.Errorf("reading %s: %w", file, err)
			}
			if f, err = patch.Parse(data); err != nil {
				return readErr(file, err)
			}
		}
		out, err := f.Apply(changes)
		if err != nil {
			return fmt.Errorf("editing %s: %w", file, err)
		}
		p.Old[file], p.New[file] = f.Bytes(), out
	}
	p.Rows = rows(p.Edits)
	return nil
}

func (p *Plan) keep(path string, f *patch.File) {
	if p.parsed == nil {
		p.parsed = map[string]*patch.File{}
	}
	p.parsed[path] = f
}

// rows groups edits by field and value so a chart version shows once with
// the versions file and every manifest it pins.
func rows(edits []Edit) []Row {
	var out []Row
	for _, e := range edits {
		key := e.Key
		if key == RevisionKey {
			key = versions.ChartVersionKey
		}
		i := slices.IndexFunc(out, func(r Row) bool {
			return r.Component == e.Component && r.Key == key && r.From == e.Old && r.To == e.New
		})
		if i < 0 && e.Key == RevisionKey {
			key = RevisionKey // drifted revision: its own row
			i = slices.IndexFunc(out, func(r Row) bool {
				return r.Component == e.Component && r.Key == key && r.From == e.Old && r.To == e.New
			})
		}
		if i < 0 {
			out = append(out, Row{Component: e.Component, Key: key, From: e.Old, To: e.New})
			i = len(out) - 1
		}
		if !slices.Contains(out[i].Files, e.File) {
			out[i].Files = append(out[i].Files, e.File)
		}
	}
	return out
}

func joinLimit(items []string) string { return strings.Join(items, ", ") }
