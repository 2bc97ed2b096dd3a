// Package rejected reads and edits the rejected-versions file: the chart
// versions and image tags nobody may promote again (promote reject and
// unreject). It lives in the repository, so a rejection is a commit,
// reviewable in a merge request, and its author is who rejected.
//
// The file, rejected-versions.yaml at the repository root, holds one
// top-level key:
//
//	rejected:
//	  - component: ledger-node.api
//	    field: chartVersion
//	    value: "1.4.0"
//	    reason: "LEDGER-901: 5xx after 1.4.0"
//
// Entries are appended and removed as whole lines, so everything else in
// the file (comments, order) stays as written.
package rejected

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Path is the file's path in the repository.
const Path = "rejected-versions.yaml"

// ErrRejected marks a value someone rejected.
var ErrRejected = errors.New("rejected version")

// header starts a file reject creates.
const header = "# Versions promote refuses to put into any environment.\n" +
	"# Written by promote reject and unreject; see docs/rollback.md.\n" +
	"rejected:\n"

// Entry is one rejected value of one component field.
type Entry struct {
	Component string `yaml:"component" json:"component"`
	Field     string `yaml:"field" json:"field"`
	Value     string `yaml:"value" json:"value"`
	Reason    string `yaml:"reason" json:"reason"`
	// Line is where the entry starts in the file.
	Line int `yaml:"-" json:"line,omitempty"`
	// end is the last line of the entry.
	end int
}

// Key names the value: "ledger-node.api.chartVersion@1.4.0".
func (e Entry) Key() string { return e.Component + "." + e.Field + "@" + e.Value }

// List is the parsed file.
type List struct {
	Entries []Entry
	data    []byte
}

// Read parses the file in fsys; a missing file is an empty list.
func Read(fsys fs.FS) (*List, error) {
	data, err := fs.ReadFile(fsys, Path)
	if errors.Is(err, fs.ErrNotExist) {
		return &List{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", Path, err)
	}
	return Parse(data)
}

// Parse reads the file's content; every entry needs all four keys.
func Parse(data []byte) (*List, error) {
	l := &List{data: data}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", Path, err)
	}
	if len(doc.Content) == 0 {
		return l, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || len(root.Content) != 2 || root.Content[0].Value != "rejected" {
		return nil, fmt.Errorf("%s:%d: want one top-level key, rejected", Path, root.Line)
	}
	seq := root.Content[1]
	if seq.Kind == yaml.ScalarNode && seq.Tag == "!!null" {
		return l, nil
	}
	if seq.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: rejected: want a list of entries", Path, seq.Line)
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	for i, item := range seq.Content {
		var e Entry
		if err := item.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", Path, item.Line, err)
		}
		if e.Component == "" || e.Field == "" || e.Value == "" || e.Reason == "" {
			return nil, fmt.Errorf("%s:%d: an entry needs component, field, value and reason", Path, item.Line)
		}
		e.Line, e.end = item.Line, lines
		if i+1 < len(seq.Content) {
			e.end = seq.Content[i+1].Line - 1
		}
		l.Entries = append(l.Entries, e)
	}
	return l, nil
}

// Find returns the entry rejecting component.field = value.
func (l *List) Find(component, field, value string) (Entry, bool) {
	for _, e := range l.Entries {
		if e.Component == component && e.Field == field && e.Value == value {
			return e, true
		}
	}
	return Entry{}, false
}

// Add returns the file's content with e appended; ok false when e's value
// is already rejected (the content is then unchanged).
func (l *List) Add(e Entry) ([]byte, bool) {
	if _, found := l.Find(e.Component, e.Field, e.Value); found {
		return l.data, false
	}
	out := bytes.Clone(l.data)
	if len(l.Entries) == 0 && !bytes.Contains(out, []byte("rejected:")) {
		out = append(out, header...)
	} else if len(l.Entries) == 0 {
		// "rejected:" or "rejected: []" with no entries: the list starts anew
		out = bytes.Replace(out, []byte("rejected: []"), []byte("rejected:"), 1)
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	fmt.Fprintf((*appender)(&out), "  - component: %s\n    field: %s\n    value: %s\n    reason: %s\n",
		quote(e.Component), quote(e.Field), quote(e.Value), quote(e.Reason))
	return out, true
}

// Remove returns the file's content without the entry rejecting
// component.field = value; ok false when there is none.
func (l *List) Remove(component, field, value string) ([]byte, bool) {
	e, found := l.Find(component, field, value)
	if !found {
		return l.data, false
	}
	lines := strings.SplitAfter(string(l.data), "\n")
	kept := append(lines[:e.Line-1:e.Line-1], lines[min(e.end, len(lines)):]...)
	return []byte(strings.Join(kept, "")), true
}

// quote writes s as a YAML double-quoted scalar: JSON's escapes are
// YAML's, so any reason reads back exactly.
func quote(s string) string { return strconv.Quote(s) }

type appender []byte

func (a *appender) Write(p []byte) (int, error) {
	*a = append(*a, p...)
	return len(p), nil
}
