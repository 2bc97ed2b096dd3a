// yqSelect selects scalars of a YAML file with a yq expression (yqlib)
// and returns them as patch targets: the tests state targets the way
// users write them in yq, and yqlib's positions are the ones patch must
// edit at. The product finds fixed key paths and Helm sources itself and
// does not link yqlib.

package patch_test

import (
	"bytes"
	"container/list"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/mikefarah/yq/v4/pkg/yqlib"

	"github.com/gitops-promote/gitops-promote/internal/patch"
)

var yqSetupOnce sync.Once

// setup silences yqlib and keeps user expressions pure. yqlib's logger and
// security preferences are process globals: a library that must never
// print, and whose expressions come from repository config, cannot leave
// them at their defaults (warnings on stderr, env and load operators on).
func yqSetup() {
	yqSetupOnce.Do(func() {
		yqlib.GetLogger().SetLevel(slog.Level(1 << 20))
		yqlib.ConfiguredSecurityPreferences.DisableEnvOps = true
		yqlib.ConfiguredSecurityPreferences.DisableFileOps = true
	})
}

// Select evaluates expr on data and returns the scalar targets it
// selects, in yqlib's order. Results the expression computes rather than
// finds in the file (they have no position) are refused; the nulls yq
// invents for missing paths count as nothing found. Errors wrap patch's
// sentinels.
func yqSelect(data []byte, expr string) ([]patch.Target, error) {
	f, err := patch.Parse(data)
	if err != nil {
		return nil, err
	}
	docs, err := yqDecode(data)
	if err != nil {
		return nil, err
	}
	in := list.New()
	docIndex := make(map[*yqlib.CandidateNode]int, len(docs))
	for i, d := range docs {
		in.PushBack(d)
		docIndex[d] = i
	}
	out, err := yqlib.NewAllAtOnceEvaluator().EvaluateCandidateNodes(expr, in)
	if err != nil {
		return nil, fmt.Errorf("select %q: %s", expr, yqOneLine(err))
	}
	var targets []patch.Target
	seen := map[*yqlib.CandidateNode]bool{}
	for e := out.Front(); e != nil; e = e.Next() {
		n := e.Value.(*yqlib.CandidateNode)
		if seen[n] {
			continue
		}
		seen[n] = true
		if n.Line == 0 {
			if n.Kind == yqlib.ScalarNode && n.Tag == "!!null" {
				continue
			}
			return nil, fmt.Errorf("select %q: result is computed, not a node of the file: %w", expr, patch.ErrUnsupported)
		}
		if k := yqKeyOf(n); k != nil {
			return nil, fmt.Errorf("select %q: selects mapping key %q at line %d: %w", expr, k.Value, k.Line, patch.ErrUnsupported)
		}
		doc, ok := docIndex[yqRoot(n)]
		if !ok {
			return nil, fmt.Errorf("select %q: result is not part of the file: %w", expr, patch.ErrUnsupported)
		}
		t, err := f.At(doc, n.Line, n.Column)
		if err != nil {
			return nil, fmt.Errorf("select %q: %w", expr, err)
		}
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("select %q: %w", expr, patch.ErrNotFound)
	}
	return targets, nil
}

// decode parses every document with yqlib's YAML decoder. Leading-content
// pre-processing stays off: it strips leading comments and `---` before
// parsing, and the reported line numbers would then not match the bytes.
func yqDecode(data []byte) ([]*yqlib.CandidateNode, error) {
	yqSetup()
	prefs := yqlib.NewDefaultYamlPreferences()
	prefs.LeadingContentPreProcessing = false
	dec := yqlib.NewYamlDecoder(prefs)
	if err := dec.Init(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("%w: %s", patch.ErrParse, yqOneLine(err))
	}
	var docs []*yqlib.CandidateNode
	for {
		n, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s", patch.ErrParse, yqOneLine(err))
		}
		docs = append(docs, n)
	}
}

// keyOf returns the mapping key n is or is part of (a key can be a
// collection), nil if none.
func yqKeyOf(n *yqlib.CandidateNode) *yqlib.CandidateNode {
	for ; n != nil; n = n.Parent {
		if n.IsMapKey && (n.Parent == nil || n.Parent.Kind == yqlib.MappingNode) {
			return n
		}
	}
	return nil
}

func yqRoot(n *yqlib.CandidateNode) *yqlib.CandidateNode {
	for n.Parent != nil {
		n = n.Parent
	}
	return n
}

func yqOneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
