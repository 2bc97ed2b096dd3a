package diff

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
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

// decode parses the document into objects, flattening a List. list reports
// whether the objects came from a List's items.
func (d document) decode() (objs []map[string]any, list bool, err error) {
	dec := yaml.NewDecoder(strings.NewReader(d.text))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return objs, list, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", d.describe(), err)
		}
		keepTimestamps(&n)
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, false, fmt.Errorf("%s: %w", d.describe(), err)
		}
		if v == nil {
			continue
		}
		m, ok := normalize(v).(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s: not a mapping", d.describe())
		}
		items, isList, err := listItems(m)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", d.describe(), err)
		}
		if isList {
			list = true
			objs = append(objs, items...)
			continue
		}
		objs = append(objs, m)
	}
}

// listItems flattens kind List (and typed lists such as ConfigMapList), as
// kubectl does.
func listItems(m map[string]any) ([]map[string]any, bool, error) {
	kind, _ := m["kind"].(string)
	raw, hasItems := m["items"]
	if !strings.HasSuffix(kind, "List") || !hasItems {
		return nil, false, nil
	}
	if raw == nil {
		return nil, true, nil
	}
	arr, ok := raw.([]any)
	if !ok {
		return nil, false, fmt.Errorf("%s items is not a list", kind)
	}
	out := make([]map[string]any, 0, len(arr))
	for i, it := range arr {
		im, ok := it.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s item %d is not a mapping", kind, i+1)
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
