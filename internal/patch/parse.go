package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/blockyaml"
)

// tree is one parsed file: the root node of every document, plus the
// document nodes (for the verifier, which compares their comments too).
type tree struct {
	docs    []*yaml.Node
	docNode []*yaml.Node // nil for the blank document of a file without one
	// plain: parsed by blockyaml, whose nodes carry no comments; comments
	// then lists the file's (blockyaml.ParseComments) for the verifier.
	plain    bool
	comments []string
	src      []byte

	once    sync.Once
	parents map[*yaml.Node]*yaml.Node
}

// parse decodes every document of data, as a yaml.v3 Decoder reads it.
// A file that holds no document but is not empty (comments, blank lines)
// reads as one blank document, as it did through yqlib: documents keep
// the indexes they had.
func parse(data []byte) (*tree, error) {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		// The parser transcodes UTF-16, so its positions would not be byte
		// positions of data.
		return nil, fmt.Errorf("utf-16 input: %w", ErrUnsupported)
	}
	if t, ok := parsePlain(data); ok {
		if err := noDuplicateKeys(t.docs); err != nil {
			return nil, err
		}
		return t, nil
	}
	return parseFull(data)
}

// parsePlain parses the plain block YAML manifests and versions files are
// written in with blockyaml, several times faster than yaml.v3 and with
// the same nodes (comments aside); ok is false outside that subset.
func parsePlain(data []byte) (*tree, bool) {
	docs, comments, ok := blockyaml.ParseComments(data)
	if !ok {
		return nil, false
	}
	t := &tree{plain: true, comments: comments, src: data}
	for _, d := range docs {
		t.docs = append(t.docs, d)
		t.docNode = append(t.docNode, &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{d}})
	}
	if len(t.docs) == 0 && len(data) > 0 {
		t.docs, t.docNode = []*yaml.Node{{Kind: yaml.ScalarNode}}, []*yaml.Node{nil}
	}
	return t, true
}

// parseFull parses data with yaml.v3, comments attached to the nodes.
func parseFull(data []byte) (*tree, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	t := &tree{src: data}
	for {
		d := new(yaml.Node)
		err := dec.Decode(d)
		if errors.Is(err, io.EOF) {
			if len(t.docs) == 0 && len(data) > 0 {
				t.docs, t.docNode = []*yaml.Node{{Kind: yaml.ScalarNode}}, []*yaml.Node{nil}
			}
			if err := noDuplicateKeys(t.docs); err != nil {
				return nil, err
			}
			return t, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s", ErrParse, oneLine(err))
		}
		if len(d.Content) == 0 {
			return nil, fmt.Errorf("%w: yaml node has no content", ErrParse)
		}
		t.docs = append(t.docs, d.Content[0])
		t.docNode = append(t.docNode, d)
	}
}

// docRoot returns the document node of document i, or its root for the
// blank document of a file without one.
func (t *tree) docRoot(i int) *yaml.Node {
	if t.docNode[i] != nil {
		return t.docNode[i]
	}
	return t.docs[i]
}

// oneLine keeps parser messages on one line, as all errors of the package.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// parent returns the collection holding n, nil for a document root. The
// map is built on first use: most parses (the verifier's, the quoting
// checks') never need it.
func (t *tree) parent(n *yaml.Node) *yaml.Node {
	t.once.Do(func() {
		t.parents = map[*yaml.Node]*yaml.Node{}
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			for _, c := range n.Content {
				t.parents[c] = n
				walk(c)
			}
		}
		for _, d := range t.docs {
			walk(d)
		}
	})
	return t.parents[n]
}

// pathOf renders the position of n in its document as a display path:
// keys joined with dots, sequence indexes in brackets, keys that would be
// ambiguous quoted as ["a.b"]. A node reached through an alias has the
// path where it is defined.
func (t *tree) pathOf(n *yaml.Node) string {
	var parts []string
	for p := t.parent(n); p != nil; n, p = p, t.parent(p) {
		switch p.Kind {
		case yaml.SequenceNode:
			parts = append(parts, "["+indexOf(p, n)+"]")
		case yaml.MappingNode:
			if k := keyOf(p, n); k != nil {
				parts = append(parts, keySegment(k.Value))
			}
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

// keyOf returns the key of value n in mapping m; nil when n is a key.
func keyOf(m, n *yaml.Node) *yaml.Node {
	for i := 1; i < len(m.Content); i += 2 {
		if m.Content[i] == n {
			return m.Content[i-1]
		}
	}
	return nil
}

func indexOf(seq, n *yaml.Node) string {
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
