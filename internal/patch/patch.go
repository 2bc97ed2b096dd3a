// Package patch edits scalar values in YAML files so that only the bytes of
// the edited values change.
//
// Files in a GitOps repository are reviewed as diffs, so a promotion must not
// reformat anything: comments, blank lines, indentation, quoting, flow style,
// anchors, document separators and line endings all have to survive byte for
// byte. The package therefore never re-encodes a document. It parses only to
// find nodes and their positions, splices the new text into the original
// bytes at those positions, and re-parses the result to prove that nothing
// but the intended values changed.
//
// The parser is go.yaml.in/yaml/v3, which promote's other readers of the
// same files (versions, config, the Argo CD discovery of internal/argo)
// use too: a promotion parses the target env's manifests once, here, and
// hands the trees on (File.Roots). yqlib, which the package used before,
// runs yaml/v4; the two read every ordinary file alike, and split a few
// odd inputs differently (TestPositionsMatchYqlib compares them). The
// tests state some targets as yq expressions, evaluated by yqlib; the
// product links neither yqlib nor yaml/v4.
//
// Everything here is pure: bytes in, bytes out, no file system, no output.
package patch

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// Sentinel errors; returned errors wrap one of them with context.
var (
	// ErrNotFound: the path, expression or target position selects nothing,
	// or a target no longer matches the file it is applied to.
	ErrNotFound = errors.New("not found")
	// ErrNotScalar: the path selects a mapping or sequence.
	ErrNotScalar = errors.New("not a scalar")
	// ErrUnsupported: the edit cannot be made without touching more than
	// the value's bytes (block or multi-line scalars, templated values...).
	ErrUnsupported = errors.New("unsupported")
	// ErrVerify: re-parsing the edited bytes showed a difference other than
	// the requested values.
	ErrVerify = errors.New("verification failed")
	// ErrParse: the input is not valid YAML.
	ErrParse = errors.New("invalid yaml")
)

// Target is one scalar found in a YAML file.
type Target struct {
	Doc          int    // 0-based document index in the file
	Path         string // display path, e.g. "spec.sources[0].targetRevision"
	Line, Column int    // 1-based, as the parser reports (Column in characters)
	Value        string // current scalar value
	Style        string // "plain", "double", "single", "literal", "folded" or "alias" (informational)
	// Templated is true when Value contains "{{" (an Argo CD or
	// ApplicationSet template); such values must never be overwritten.
	Templated bool
}

var errEmptyPath = fmt.Errorf("find: empty key path: %w", ErrNotFound)

func findIn(t *tree, keyPath []string) (Target, error) {
	display := strings.Join(keyPath, ".")
	for i, doc := range t.docs {
		n := lookup(doc, keyPath)
		if n == nil {
			continue
		}
		if r := resolve(n); r == nil || r.Kind != yaml.ScalarNode {
			return Target{}, fmt.Errorf("find %s: document %d line %d: %w", display, i, n.Line, ErrNotScalar)
		}
		return t.newTarget(n, i), nil
	}
	return Target{}, fmt.Errorf("find %s: %w", display, ErrNotFound)
}

// lookup follows mapping keys from n; it returns nil when a key is missing.
func lookup(n *yaml.Node, keys []string) *yaml.Node {
	for _, key := range keys {
		m := resolve(n)
		if m == nil || m.Kind != yaml.MappingNode {
			return nil
		}
		n = yamlnode.Value(m, key)
		if n == nil {
			return nil
		}
	}
	return n
}

// resolve follows an alias chain to the node it stands for. The parser
// rejects unknown anchors and cycles, but the loop is bounded anyway so a
// malformed tree cannot hang the caller.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 1000; i++ {
		n = n.Alias
	}
	return n
}

// newTarget describes node n of document doc.
func (t *tree) newTarget(n *yaml.Node, doc int) Target {
	value := ""
	if r := resolve(n); r != nil {
		value = r.Value
	}
	return Target{
		Doc:       doc,
		Path:      t.pathOf(n),
		Line:      n.Line,
		Column:    n.Column,
		Value:     value,
		Style:     styleName(n),
		Templated: strings.Contains(value, "{{"),
	}
}

func styleName(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.AliasNode:
		return "alias"
	case n.Style&yaml.DoubleQuotedStyle != 0:
		return "double"
	case n.Style&yaml.SingleQuotedStyle != 0:
		return "single"
	case n.Style&yaml.LiteralStyle != 0:
		return "literal"
	case n.Style&yaml.FoldedStyle != 0:
		return "folded"
	}
	return "plain"
}
