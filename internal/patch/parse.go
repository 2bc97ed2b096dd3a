package patch

import (
	"bytes"
	"container/list"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
)

var setupOnce sync.Once

// setup silences yqlib and keeps user expressions pure. yqlib's logger and
// security preferences are process globals: a library that must never
// print, and whose expressions come from repository config, cannot leave
// them at their defaults (warnings on stderr, env and load operators on).
func setup() {
	setupOnce.Do(func() {
		yqlib.GetLogger().SetLevel(slog.Level(1 << 20))
		yqlib.ConfiguredSecurityPreferences.DisableEnvOps = true
		yqlib.ConfiguredSecurityPreferences.DisableFileOps = true
	})
}

// parse decodes every document of data with yqlib. Leading-content
// pre-processing stays off: it strips leading comments and `---` before
// parsing and the reported line numbers then no longer match the bytes.
func parse(data []byte) ([]*yqlib.CandidateNode, error) {
	setup()
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		// The parser transcodes UTF-16, so its positions would not be byte
		// positions of data.
		return nil, fmt.Errorf("utf-16 input: %w", ErrUnsupported)
	}
	prefs := yqlib.NewDefaultYamlPreferences()
	prefs.LeadingContentPreProcessing = false
	dec := yqlib.NewYamlDecoder(prefs)
	if err := dec.Init(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrParse, oneLine(err))
	}
	var docs []*yqlib.CandidateNode
	for {
		n, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			if err := noDuplicateKeys(docs); err != nil {
				return nil, err
			}
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s", ErrParse, oneLine(err))
		}
		docs = append(docs, n)
	}
}

// oneLine keeps parser messages on one line, as all errors of the package.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// Select evaluates a user-given yq expression and returns the scalar
// targets it selects, in yqlib's order. Results the expression computes
// rather than finds in the file (they have no position) are refused; the
// nulls yq invents for missing paths count as nothing found.
func Select(data []byte, expr string) ([]Target, error) {
	docs, err := parse(data)
	if err != nil {
		return nil, err
	}
	in := listOf(docs)
	out, err := yqlib.NewAllAtOnceEvaluator().EvaluateCandidateNodes(expr, in)
	if err != nil {
		return nil, fmt.Errorf("select %q: %s", expr, oneLine(err))
	}
	docIndex := make(map[*yqlib.CandidateNode]int, len(docs))
	for i, d := range docs {
		docIndex[d] = i
	}
	var targets []Target
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
			return nil, fmt.Errorf("select %q: result is computed, not a node of the file: %w", expr, ErrUnsupported)
		}
		if n.IsMapKey {
			return nil, fmt.Errorf("select %q: selects mapping key %q at line %d: %w", expr, n.Value, n.Line, ErrUnsupported)
		}
		doc, ok := docIndex[root(n)]
		if !ok {
			return nil, fmt.Errorf("select %q: result is not part of the file: %w", expr, ErrUnsupported)
		}
		if r := resolve(n); r == nil || r.Kind != yqlib.ScalarNode {
			return nil, fmt.Errorf("select %q: %s line %d: %w", expr, pathOf(n), n.Line, ErrNotScalar)
		}
		targets = append(targets, newTarget(n, doc))
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("select %q: %w", expr, ErrNotFound)
	}
	return targets, nil
}

func listOf(docs []*yqlib.CandidateNode) *list.List {
	l := list.New()
	for _, d := range docs {
		l.PushBack(d)
	}
	return l
}

func root(n *yqlib.CandidateNode) *yqlib.CandidateNode {
	for n.Parent != nil {
		n = n.Parent
	}
	return n
}

// pathOf renders the position of n in its document as a display path:
// keys joined with dots, sequence indexes in brackets, keys that would be
// ambiguous quoted as ["a.b"].
func pathOf(n *yqlib.CandidateNode) string {
	var parts []string
	for ; n.Parent != nil; n = n.Parent {
		p := n.Parent
		switch {
		case p.Kind == yqlib.SequenceNode:
			parts = append(parts, "["+indexOf(p, n)+"]")
		case n.Key != nil:
			parts = append(parts, keySegment(n.Key.Value))
		}
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		if b.Len() > 0 && !strings.HasPrefix(parts[i], "[") {
			b.WriteByte('.')
		}
		b.WriteString(parts[i])
	}
	if b.Len() == 0 {
		return "."
	}
	return b.String()
}

func indexOf(seq, n *yqlib.CandidateNode) string {
	for i, c := range seq.Content {
		if c == n {
			return strconv.Itoa(i)
		}
	}
	return "?"
}

func keySegment(k string) string {
	if k == "" || strings.ContainsAny(k, ".[]\" \t\n\r") {
		return "[" + strconv.Quote(k) + "]"
	}
	return k
}
