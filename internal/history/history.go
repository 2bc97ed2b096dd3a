// Package history reads what happened to one environment from the
// first-parent log: promote's own commits (promotions, pins, rollbacks,
// read from their subjects and trailers) and every other commit that
// changed the env's versions file ("edited by hand"). Field changes come
// from the versions file itself, before and after each commit, so an
// entry is true even when a message was edited.
package history

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

// Kinds of entries.
const (
	KindPromote  = "promote"
	KindPin      = "pin"
	KindRollback = "rollback"
	KindEdit     = "edit" // a commit by someone else that changed the versions file
)

// Trailers promote writes, besides Promoted-From, Pinned-On,
// Promote-Components and Gate-Overridden.
const (
	TrailerRolledBackTo   = "Rolled-Back-To"
	TrailerRollbackReason = "Rollback-Reason"
	TrailerFieldsForced   = "Rollback-Forced-Fields"
)

// DefaultLimit bounds a walk: enough for months of promotions, and a
// shallow CI clone ends it earlier (ErrShallow is then not an error).
const DefaultLimit = 500

// Change is one field of one component moving.
type Change struct {
	Component string `json:"component"`
	Key       string `json:"key"`
	From      string `json:"from"`
	To        string `json:"to"`
}

// Entry is one commit that changed the env.
type Entry struct {
	Commit       string    `json:"commit"`
	When         time.Time `json:"date"`
	Author       string    `json:"author"`
	Email        string    `json:"email,omitempty"`
	Kind         string    `json:"kind"`
	Subject      string    `json:"subject"`
	From         string    `json:"from,omitempty"`       // promote: the source env
	FromCommit   string    `json:"fromCommit,omitempty"` // promote: source commit; pin: base
	Changes      []Change  `json:"changes"`
	Overrides    []string  `json:"overrides,omitempty"` // Gate-Overridden trailers' values
	RolledBackTo string    `json:"rolledBackTo,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	Forced       []string  `json:"forcedFields,omitempty"`
	// Parent is the commit before this one on the first-parent line.
	Parent string `json:"-"`
}

// Ours says whether promote wrote the commit.
func (e Entry) Ours() bool { return e.Kind != KindEdit }

// Repo is what history reads of a repository.
type Repo interface {
	FirstParentLog(from plumbing.Hash, max int, fn func(git.LogEntry) bool) error
	TreeFS(commit plumbing.Hash) (fs.FS, error)
}

// subjectRE is compiled on first use, not at init: every start of
// promote would pay for it.
var subjectRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^chore\(([^)]+)\): (promote versions from (\S+)|pin |roll back )`)
})

// Read lists env's entries from head back, newest first, reading at most
// limit commits (0: DefaultLimit). A shallow clone ends the walk early
// without error: what it holds is listed.
func Read(repo Repo, cfg *config.Config, env string, head plumbing.Hash, limit int) ([]Entry, error) {
	if err := cfg.CheckEnv(env); err != nil {
		return nil, fmt.Errorf("--env: %w", err)
	}
	if limit <= 0 {
		limit = DefaultLimit
	}
	path := cfg.VersionsPath(env)
	var out []Entry
	var werr error
	err := repo.FirstParentLog(head, limit, func(le git.LogEntry) bool {
		e, ok, err := entry(repo, cfg, env, path, le)
		if err != nil {
			werr = err
			return false
		}
		if ok {
			out = append(out, e)
		}
		return true
	})
	if werr != nil {
		return nil, werr
	}
	if err != nil && !errors.Is(err, git.ErrShallow) {
		return nil, err
	}
	return out, nil
}

// entry reads one commit: ours for env by its subject, anybody's when it
// changed env's versions file.
func entry(repo Repo, cfg *config.Config, env, path string, le git.LogEntry) (Entry, bool, error) {
	subject, body, _ := strings.Cut(le.Message, "\n")
	e := Entry{Commit: le.Hash.String(), When: le.When.UTC(), Author: le.Author.Name, Email: le.Author.Email,
		Subject: subject, Kind: KindEdit, Changes: []Change{}}
	if len(le.Parents) > 0 {
		e.Parent = le.Parents[0].String()
	}
	if m := subjectRE().FindStringSubmatch(subject); m != nil && m[1] == env {
		switch {
		case m[3] != "":
			e.Kind, e.From = KindPromote, m[3]
		case strings.HasPrefix(m[2], "pin"):
			e.Kind = KindPin
		default:
			e.Kind = KindRollback
		}
		readTrailers(&e, body)
	}
	changes, err := fileChanges(repo, cfg, path, le)
	if err != nil {
		return Entry{}, false, err
	}
	if changes == nil && !e.Ours() {
		return Entry{}, false, nil
	}
	if changes != nil {
		e.Changes = changes
	}
	return e, true, nil
}

func readTrailers(e *Entry, body string) {
	t := ReadTrailers(body)
	e.FromCommit, e.Overrides = t.FromCommit, t.Overrides
	e.RolledBackTo, e.Reason, e.Forced = t.RolledBackTo, t.Reason, t.Forced
}

// Trailers are the trailers promote writes on its commits, read back
// from a commit message: history and promote's status read them alike.
type Trailers struct {
	FromCommit    string   // Promoted-From's commit, or Pinned-On
	Components    []string // Promote-Components
	Overrides     []string // Gate-Overridden and Rejected-Overridden values, in order
	GateOverrides []string // the Gate-Overridden values alone
	RolledBackTo  string
	Reason        string   // Rollback-Reason
	Forced        []string // Rollback-Forced-Fields
}

// ReadTrailers reads the trailers of a commit message body.
func ReadTrailers(body string) Trailers {
	var t Trailers
	for _, line := range strings.Split(body, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch k {
		case "Promoted-From":
			if _, sha, ok := strings.Cut(v, "@"); ok {
				t.FromCommit = sha
			}
		case "Pinned-On":
			t.FromCommit = v
		case "Promote-Components":
			t.Components = strings.Split(v, ", ")
		case "Gate-Overridden":
			t.Overrides = append(t.Overrides, v)
			t.GateOverrides = append(t.GateOverrides, v)
		case "Rejected-Overridden":
			t.Overrides = append(t.Overrides, v)
		case TrailerRolledBackTo:
			t.RolledBackTo = v
		case TrailerRollbackReason:
			t.Reason = v
		case TrailerFieldsForced:
			t.Forced = strings.Split(v, ", ")
		}
	}
	return t
}

// fileChanges lists the fields of the versions file at path that le
// changes against its first parent; nil when the file did not change.
func fileChanges(repo Repo, cfg *config.Config, path string, le git.LogEntry) ([]Change, error) {
	after, aerr := readAt(repo, le.Hash, path)
	if aerr != nil && !errors.Is(aerr, fs.ErrNotExist) {
		return nil, aerr
	}
	var before []byte
	if len(le.Parents) > 0 {
		var berr error
		if before, berr = readAt(repo, le.Parents[0], path); berr != nil && !errors.Is(berr, fs.ErrNotExist) {
			return nil, berr
		}
	}
	if string(before) == string(after) {
		return nil, nil
	}
	return Diff(cfg, path, before, after), nil
}

func readAt(repo Repo, commit plumbing.Hash, path string) ([]byte, error) {
	tree, err := repo.TreeFS(commit)
	if err != nil {
		return nil, err
	}
	return fs.ReadFile(tree, path)
}

// Diff lists the configured fields that differ between two contents of a
// versions file, in config and file order; a field absent on one side
// shows an empty value there. Unparsable content reads as empty: history
// shows what it can.
func Diff(cfg *config.Config, path string, before, after []byte) []Change {
	old, new := Values(cfg, path, before), Values(cfg, path, after)
	out := []Change{}
	for _, k := range new.keys {
		if old.m[k] != new.m[k] {
			c, f := splitField(k)
			out = append(out, Change{Component: c, Key: f, From: old.m[k], To: new.m[k]})
		}
	}
	for _, k := range old.keys {
		if _, ok := new.m[k]; !ok {
			c, f := splitField(k)
			out = append(out, Change{Component: c, Key: f, From: old.m[k]})
		}
	}
	return out
}

// FieldValues maps "component\x00field" to a value, keeping file order.
type FieldValues struct {
	keys []string
	m    map[string]string
}

// Get returns a component field's value.
func (v FieldValues) Get(component, field string) (string, bool) {
	s, ok := v.m[component+"\x00"+field]
	return s, ok
}

// Values reads every configured field of a versions file's content.
func Values(cfg *config.Config, path string, data []byte) FieldValues {
	v := FieldValues{m: map[string]string{}}
	if len(data) == 0 {
		return v
	}
	f, err := versions.Read(path, data, cfg.Components)
	if err != nil {
		return v
	}
	for _, c := range f.Components {
		for _, fl := range c.Fields {
			k := c.Key + "\x00" + fl.Key
			v.keys = append(v.keys, k)
			v.m[k] = fl.Value
		}
	}
	return v
}

func splitField(k string) (string, string) {
	c, f, _ := strings.Cut(k, "\x00")
	return c, f
}
