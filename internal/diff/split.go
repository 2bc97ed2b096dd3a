package diff

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// document is one "---"-separated chunk of a manifest stream.
type document struct {
	index  int // 1-based, counting only chunks with text
	line   int // 1-based line where the chunk starts
	source string
	text   string
}

// describe names the document in errors the way a reader can find it.
func (d document) describe() string {
	s := fmt.Sprintf("document %d (line %d", d.index, d.line)
	if d.source != "" {
		s += ", source " + d.source
	}
	return s + ")"
}

// splitDocuments cuts at "---" and "..." markers in column 0. Splitting the
// text ourselves, rather than letting the YAML decoder do it, keeps each
// document's line number and "# Source:" comment.
func splitDocuments(s string) []document {
	var docs []document
	var cur strings.Builder
	start, line := 1, 0
	flush := func(next int) {
		text := cur.String()
		cur.Reset()
		if strings.TrimSpace(text) != "" {
			docs = append(docs, document{index: len(docs) + 1, line: start, source: sourceComment(text), text: text})
		}
		start = next
	}
	for rest := s; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		line++
		switch {
		case isMarker(l, "---"):
			flush(line)
			// Content may follow the marker on the same line ("--- {a: 1}").
			cur.WriteString(strings.Repeat(" ", 3) + l[3:] + "\n")
		case isMarker(l, "..."):
			flush(line + 1)
		default:
			cur.WriteString(l + "\n")
		}
	}
	flush(line)
	return docs
}

func isMarker(l, m string) bool {
	if !strings.HasPrefix(l, m) {
		return false
	}
	r := l[len(m):]
	return r == "" || r[0] == ' ' || r[0] == '\t' || r[0] == '\r'
}

// sourceComment returns the path of Helm's "# Source:" comment when it comes
// before the document's content.
func sourceComment(text string) string {
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if p, ok := strings.CutPrefix(t, "# Source:"); ok {
			return strings.TrimSpace(p)
		}
		if !strings.HasPrefix(t, "#") {
			return ""
		}
	}
	return ""
}

// Bounds on one rendered document, so that a hostile or broken chart
// fails its own app with a clear error instead of exhausting memory. The
// API server refuses objects past ~1.5 MiB (etcd's request limit) and real
// manifests nest a few dozen levels, CRD schemas included. A step that
// handles rendered documents before Parse (re-encoding them, say) should
// refuse the same ones: see TooDeep.
const (
	MaxDocumentBytes = 8 << 20
	MaxDepth         = 256
)

// the package's own short names
const (
	maxDocumentBytes = MaxDocumentBytes
	maxDepth         = MaxDepth
)

// TooDeep reports whether n nests deeper than MaxDepth, the bound Parse
// enforces; it stops looking at that depth, so its cost is bounded by
// the document's size.
func TooDeep(n *yaml.Node) bool { return tooDeep(n, 0) }

// decode parses the document into objects, flattening Lists at any depth.
// list reports whether the objects came from a List's items; reps holds,
// beside each object, the keys its YAML document repeats (the last value
// is kept, as Argo CD keeps it). YAML errors are scrubbed: they can quote
// rendered content.
func (d document) decode(mark func(*yaml.Node)) (objs []map[string]any, reps [][]Repeat, list bool, err error) {
	if len(d.text) > maxDocumentBytes {
		return nil, nil, false, fmt.Errorf("%s: larger than %d MiB", d.describe(), maxDocumentBytes>>20)
	}
	dec := yaml.NewDecoder(strings.NewReader(d.text))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return objs, reps, list, nil
		}
		if err != nil {
			return nil, nil, false, fmt.Errorf("%s: %w", d.describe(), noValues(err))
		}
		if tooDeep(&n, 0) {
			return nil, nil, false, fmt.Errorf("%s: nested deeper than %d levels", d.describe(), maxDepth)
		}
		r := keepLast(&n)
		if mark != nil {
			mark(&n)
		}
		if err := taint(&n); err != nil {
			return nil, nil, false, fmt.Errorf("%s: %w", d.describe(), err)
		}
		keepTimestamps(&n)
		asYAML11(&n)
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, nil, false, fmt.Errorf("%s: %w", d.describe(), noValues(err))
		}
		if v == nil {
			continue
		}
		m, ok := normalize(v).(map[string]any)
		if !ok {
			return nil, nil, false, fmt.Errorf("%s: not a mapping", d.describe())
		}
		items, isList, err := listItems(m, 0)
		if err != nil {
			return nil, nil, false, fmt.Errorf("%s: %w", d.describe(), err)
		}
		if isList {
			list = true
			objs = append(objs, items...)
			for range items {
				reps = append(reps, r)
			}
			continue
		}
		objs = append(objs, m)
		reps = append(reps, r)
	}
}

// noValues drops what a YAML error quotes of the document (an unknown
// anchor's name, an undecodable scalar): rendered content may be a Secret.
func noValues(err error) error { return (*scrub.Set)(nil).Error(err) }

// tooDeep reports whether n nests deeper than maxDepth; it stops looking
// at that depth, so its cost is bounded by the document's size.
func tooDeep(n *yaml.Node, depth int) bool {
	if depth > maxDepth {
		return true
	}
	for _, c := range n.Content {
		if tooDeep(c, depth+1) {
			return true
		}
	}
	return false
}

// listItems flattens kind List (and typed lists such as ConfigMapList), as
// kubectl does, and a List inside a List at any depth, so that every
// object inside is diffed and redacted as a resource of its own.
func listItems(m map[string]any, depth int) ([]map[string]any, bool, error) {
	kind, _ := m["kind"].(string)
	raw, hasItems := m["items"]
	if !strings.HasSuffix(kind, "List") || !hasItems {
		return nil, false, nil
	}
	if depth > maxDepth {
		return nil, false, fmt.Errorf("lists nested deeper than %d levels", maxDepth)
	}
	if raw == nil {
		// Argo CD drops a list whose items are null, unless it has a
		// spec or status (then it is an object that happens to have
		// items)
		_, spec := m["spec"]
		_, status := m["status"]
		return nil, !spec && !status, nil
	}
	arr, ok := raw.([]any)
	if !ok {
		// Argo CD flattens only items that are a list; anything else is
		// an object of its own
		return nil, false, nil
	}
	out := make([]map[string]any, 0, len(arr))
	for i, it := range arr {
		im, ok := it.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s item %d is not a mapping", kind, i+1)
		}
		inner, isList, err := listItems(im, depth+1)
		if err != nil {
			return nil, false, fmt.Errorf("%s item %d: %w", kind, i+1, err)
		}
		if isList {
			out = append(out, inner...)
			continue
		}
		out = append(out, im)
	}
	return out, true, nil
}

// normalize turns the decoder's map[any]any (non-string keys) into
// map[string]any so the rest of the package sees one shape.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalize(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = normalize(e)
		}
		return t
	}
	return v
}

// keepTimestamps retags timestamp scalars as strings: decoded into any they
// would become time.Time and be re-serialised in another format, showing a
// change nobody made.
func keepTimestamps(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!timestamp" {
		n.Tag = "!!str"
	}
	for _, c := range n.Content {
		keepTimestamps(c)
	}
}
