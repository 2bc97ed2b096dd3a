package argo

import (
	"errors"
	"fmt"
)

// ErrDuplicateKey: a mapping of a manifest repeats a key. YAML forbids it,
// and readers disagree about which value wins: Argo CD's repo-server and
// kubectl (sigs.k8s.io/yaml, non-strict) keep the last silently, yqlib
// edits the first, yaml.v3 decoding into a struct refuses the document.
// Whatever is rendered, checked or promoted from such a document could
// differ from what the cluster gets, so every reader refuses it.
var ErrDuplicateKey = errors.New("duplicate mapping key")

// DuplicateKeyError locates the second occurrence of a key in a manifest.
// Its message reads like internal/patch's, which promote prints for the
// files it edits: "file:line: key "k" is already defined at line n".
type DuplicateKeyError struct {
	File        string
	Key         string
	Line, First int // lines of the repeated and of the first occurrence
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("%s:%d: key %q is already defined at line %d: %s", e.File, e.Line, e.Key, e.First, ErrDuplicateKey)
}

func (e *DuplicateKeyError) Unwrap() error { return ErrDuplicateKey }
