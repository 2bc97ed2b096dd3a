package patch

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// ErrDuplicateKey: a mapping repeats a key. YAML forbids it and readers
// disagree about which value wins (yqlib edits the first, Argo CD and
// Helm read the last), so no edit is made to such a file.
var ErrDuplicateKey = errors.New("duplicate mapping key")

// DuplicateKeyError locates the second occurrence of a key. Callers that
// know the file name set File, and the message then starts "file:line".
type DuplicateKeyError struct {
	File        string
	Key         string
	Line, First int // lines of the repeated and of the first occurrence
}

func (e *DuplicateKeyError) Error() string {
	at := fmt.Sprintf("line %d", e.Line)
	if e.File != "" {
		at = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return fmt.Sprintf("%s: key %q is already defined at line %d: %s", at, e.Key, e.First, ErrDuplicateKey)
}

// InFile returns err with the file name set when it is a
// *DuplicateKeyError, and nil otherwise.
func InFile(file string, err error) *DuplicateKeyError {
	var de *DuplicateKeyError
	if !errors.As(err, &de) {
		return nil
	}
	located := *de
	located.File = file
	return &located
}

func (e *DuplicateKeyError) Unwrap() error { return ErrDuplicateKey }

// noDuplicateKeys walks every mapping of the documents; aliases are not
// followed (their target is walked where it is defined).
func noDuplicateKeys(docs []*yaml.Node) error {
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		if n == nil || n.Kind == yaml.AliasNode {
			return nil
		}
		if n.Kind == yaml.MappingNode {
			if err := repeatedKey(n.Content); err != nil {
				return err
			}
		}
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range docs {
		if err := walk(d); err != nil {
			return err
		}
	}
	return nil
}

// smallMapping is the size up to which keys are compared pairwise, which
// allocates nothing: nearly every mapping of a versions file or manifest
// is that small.
const smallMapping = 16

// repeatedKey reports the first scalar key of a mapping's content that
// repeats an earlier one.
func repeatedKey(content []*yaml.Node) error {
	if len(content)/2 <= smallMapping {
		for i := 2; i+1 < len(content); i += 2 {
			k := content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			for j := 0; j < i; j += 2 {
				if p := content[j]; p.Kind == yaml.ScalarNode && p.Value == k.Value {
					return &DuplicateKeyError{Key: k.Value, Line: k.Line, First: p.Line}
				}
			}
		}
		return nil
	}
	first := make(map[string]int, len(content)/2)
	for i := 0; i+1 < len(content); i += 2 {
		k := content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if line, ok := first[k.Value]; ok {
			return &DuplicateKeyError{Key: k.Value, Line: k.Line, First: line}
		}
		first[k.Value] = k.Line
	}
	return nil
}
