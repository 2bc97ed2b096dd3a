package patch

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
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

// noDuplicateKeys refuses the first repeated key of the documents.
func noDuplicateKeys(docs []*yaml.Node) error {
	for _, d := range docs {
		if k, first := yamlnode.DuplicateKey(d); k != nil {
			return &DuplicateKeyError{Key: k.Value, Line: k.Line, First: first}
		}
	}
	return nil
}
