// Package blockyaml parses the plain block subset of YAML that Kubernetes
// and Argo CD manifests are written in into the nodes yaml.v3 builds for
// it, several times faster than yaml.v3's scanner and parser: block
// mappings and sequences, plain and quoted one-line scalars, literal
// block scalars, empty flow collections, comments and document markers.
//
// Parse refuses (ok false) anything else: tabs, non-ASCII text, anchors,
// aliases, tags, flow collections with content, folded or multi-line
// scalars, escapes, and every shape it is not sure yaml.v3 reads the same
// way. The caller then parses with yaml.v3, so a document's nodes, and
// its errors, are always yaml.v3's. Where Parse accepts, its nodes equal
// yaml.v3's in kind, tag, style, value, line and column (FuzzParse);
// comments are not kept in the nodes: ParseComments lists them apart.
package blockyaml

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Parse returns the root node of every document of data, as yaml.v3's
// Decoder returns them in Node.Content[0] (an empty document is a null
// scalar), or ok false when data is outside the subset.
func Parse(data []byte) (docs []*yaml.Node, ok bool) {
	docs, _, ok = parse(data, false)
	return docs, ok
}

// ParseComments is Parse that also returns the text of every comment of
// data, from its "#" to the end of its line, in file order: a reader that
// must notice a lost or altered comment (internal/patch's verifier)
// compares these, as the nodes carry none. Lines of a literal block
// scalar are its content, never comments.
func ParseComments(data []byte) (docs []*yaml.Node, comments []string, ok bool) {
	return parse(data, true)
}

func parse(data []byte, keep bool) (docs []*yaml.Node, comments []string, ok bool) {
	defer func() {
		if recover() != nil { // a refusal deep in the tree
			docs, comments, ok = nil, nil, false
		}
	}()
	p := newParser(data)
	if p == nil {
		return nil, nil, false
	}
	p.keep = keep
	docs = p.documents()
	return docs, p.comments, true
}

// refuse unwinds to Parse: the input is outside the subset.
type refusal struct{}

func refuse() { panic(refusal{}) }

type line struct {
	text   string // without the line break
	indent int    // leading spaces
	// content: not blank and not only a comment
	content bool
}

type parser struct {
	lines []line
	// terminated: data ends with a line break
	terminated bool
	i          int // the current line
	slab       []yaml.Node
	keep       bool     // record comments (ParseComments)
	comments   []string // the comments passed so far
}

// comment records c, a comment from its "#" on, when comments are kept.
func (p *parser) comment(c string) {
	if p.keep {
		p.comments = append(p.comments, strings.TrimRight(c, " "))
	}
}

func newParser(data []byte) *parser {
	for _, c := range data {
		if c >= 0x7f || c < ' ' && c != '\n' {
			return nil // tabs, CR, control characters, non-ASCII
		}
	}
	s := string(data)
	p := &parser{terminated: strings.HasSuffix(s, "\n")}
	s = strings.TrimSuffix(s, "\n")
	if s == "" && !p.terminated {
		return p
	}
	p.lines = make([]line, 0, strings.Count(s, "\n")+1)
	for {
		t, rest, more := strings.Cut(s, "\n")
		if strings.HasPrefix(t, "...") && (len(t) == 3 || t[3] == ' ') {
			return nil // a document end marker, wherever it is: yaml.v3 ends the document there
		}
		ind := len(t) - len(strings.TrimLeft(t, " "))
		p.lines = append(p.lines, line{text: t, indent: ind, content: ind < len(t) && t[ind] != '#'})
		if !more {
			break
		}
		s = rest
	}
	return p
}

// node allocates nodes in blocks: a manifest has hundreds.
func (p *parser) node(kind yaml.Kind, tag, value string, style yaml.Style, ln, col int) *yaml.Node {
	if len(p.slab) == 0 {
		p.slab = make([]yaml.Node, 64)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.Kind, n.Tag, n.Value, n.Style, n.Line, n.Column = kind, tag, value, style, ln+1, col+1
	return n
}

// marker reports a document start line ("---", maybe a comment after);
// content after the marker is refused.
func marker(t string) bool {
	if t == "---" {
		return true
	}
	if !strings.HasPrefix(t, "--- ") {
		return false
	}
	if rest := strings.TrimLeft(t[4:], " "); rest != "" && rest[0] != '#' {
		refuse()
	}
	return true
}

func (p *parser) documents() []*yaml.Node {
	var docs []*yaml.Node
	explicit := false // the document began with a marker
	for {
		p.skip()
		if p.i == len(p.lines) {
			if explicit {
				docs = append(docs, p.emptyDoc())
			}
			return docs
		}
		t := p.lines[p.i].text
		if strings.HasPrefix(t, "...") || strings.HasPrefix(t, "%") {
			refuse()
		}
		if marker(t) {
			if explicit {
				docs = append(docs, p.emptyDoc())
			}
			if c := strings.TrimLeft(t[3:], " "); c != "" {
				p.comment(c)
			}
			explicit = true
			p.i++
			continue
		}
		docs = append(docs, p.root())
		explicit = false
		p.skip()
		if p.i < len(p.lines) && !marker(p.lines[p.i].text) {
			refuse() // more content after the root node
		}
	}
}

// emptyDoc is the null node yaml.v3 gives a document with no content, at
// the next marker or the end of the input.
func (p *parser) emptyDoc() *yaml.Node {
	if p.i == len(p.lines) && !p.terminated {
		refuse()
	}
	return p.node(yaml.ScalarNode, "!!null", "", 0, p.i, 0)
}

// skip moves past blank and comment lines.
func (p *parser) skip() {
	for p.i < len(p.lines) && !p.lines[p.i].content {
		if l := p.lines[p.i]; l.indent < len(l.text) {
			p.comment(l.text[l.indent:])
		}
		p.i++
	}
}

// root parses a document's node, a block mapping or sequence.
func (p *parser) root() *yaml.Node {
	l := p.lines[p.i]
	if item(l.text, l.indent) {
		return p.sequence(l.indent)
	}
	return p.mapping(l.indent, l.indent)
}

// item reports a block sequence entry at col: "-" then a space or the end.
func item(t string, col int) bool {
	return col < len(t) && t[col] == '-' && (col+1 == len(t) || t[col+1] == ' ')
}

// mapping parses a block mapping whose first key is at column col of the
// current line; its later keys are at col on lines of that indentation.
// parent is the indentation a compact sequence value may sit at.
func (p *parser) mapping(col, parent int) *yaml.Node {
	m := p.node(yaml.MappingNode, "!!map", "", 0, p.i, col)
	for {
		ln := p.i
		t := p.lines[ln].text
		k, after := key(t, col)
		if k == nil {
			refuse()
		}
		key := p.node(yaml.ScalarNode, k.tag, k.value, k.style, ln, col)
		v := p.value(t, after, col, true)
		m.Content = append(m.Content, key, v)
		p.skip()
		if p.i == len(p.lines) {
			return m
		}
		next := p.lines[p.i]
		if marker(next.text) || next.indent < col {
			return m
		}
		if next.indent > col || item(next.text, col) {
			refuse() // a continuation, or an entry where a key belongs
		}
	}
}

// sequence parses a block sequence whose entries are at column col.
func (p *parser) sequence(col int) *yaml.Node {
	s := p.node(yaml.SequenceNode, "!!seq", "", 0, p.i, col)
	for {
		ln := p.i
		t := p.lines[ln].text
		at := col + 1
		for at < len(t) && t[at] == ' ' {
			at++
		}
		var v *yaml.Node
		switch {
		case at == len(t) || t[at] == '#':
			if at < len(t) {
				p.comment(t[at:])
			}
			v = p.nested(col, col+1, false)
		case item(t, at):
			refuse() // "- - x"
		default:
			if k, _ := key(t, at); k != nil {
				v = p.mapping(at, at)
			} else {
				v = p.value(t, col, col, false)
			}
		}
		s.Content = append(s.Content, v)
		p.skip()
		if p.i == len(p.lines) {
			return s
		}
		next := p.lines[p.i]
		if marker(next.text) || next.indent < col {
			return s
		}
		if next.indent > col || !item(next.text, col) {
			if next.indent == col {
				return s // the next key of the mapping holding this compact sequence
			}
			refuse()
		}
	}
}

// value parses what follows a key's ":" or an entry's "-" at column
// after-1 of t (the indicator is at after-1): a scalar on the line, or a
// node on the lines below. indent is the key's or the entry's column.
func (p *parser) value(t string, after, indent int, inMapping bool) *yaml.Node {
	ln := p.i
	at := after + 1
	for at < len(t) && t[at] == ' ' {
		at++
	}
	if at == len(t) || t[at] == '#' {
		if at < len(t) && at == after+1 {
			refuse() // "a:#" is not a comment
		}
		if at < len(t) {
			p.comment(t[at:])
		}
		return p.nested(indent, after+1, inMapping)
	}
	if at == after+1 {
		refuse()
	}
	var v *yaml.Node
	var end int
	switch t[at] {
	case '"', '\'':
		s, e := quoted(t, at)
		if e < 0 {
			refuse()
		}
		style := yaml.DoubleQuotedStyle
		if t[at] == '\'' {
			style = yaml.SingleQuotedStyle
		}
		v, end = p.node(yaml.ScalarNode, "!!str", s, style, ln, at), e
	case '{', '[':
		e := at + 1
		for e < len(t) && t[e] == ' ' {
			e++
		}
		if e == len(t) || t[e] != t[at]+2 { // '}' and ']' follow '{' and '[' by two
			refuse()
		}
		kind, tag := yaml.MappingNode, "!!map"
		if t[at] == '[' {
			kind, tag = yaml.SequenceNode, "!!seq"
		}
		v, end = p.node(kind, tag, "", yaml.FlowStyle, ln, at), e+1
	case '|':
		return p.literal(t, at, indent)
	default:
		s, e := plain(t, at)
		if e < 0 {
			refuse()
		}
		v, end = p.node(yaml.ScalarNode, resolve(s), s, 0, ln, at), e
	}
	if !trailer(t, end) {
		refuse()
	}
	if c := strings.TrimLeft(t[end:], " "); c != "" {
		p.comment(c)
	}
	p.i++
	return v
}

// nested parses the node below a key or entry with nothing after its
// indicator: a deeper block, a compact sequence at the key's own
// indentation, or else null at column col of this line.
func (p *parser) nested(indent, col int, inMapping bool) *yaml.Node {
	ln := p.i
	p.i++
	p.skip()
	if p.i < len(p.lines) && !marker(p.lines[p.i].text) {
		next := p.lines[p.i]
		switch {
		case next.indent > indent && item(next.text, next.indent):
			return p.sequence(next.indent)
		case next.indent > indent:
			return p.mapping(next.indent, next.indent)
		case next.indent == indent && inMapping && item(next.text, indent):
			return p.sequence(indent)
		}
	}
	return p.node(yaml.ScalarNode, "!!null", "", 0, ln, col)
}

// literal parses a "|" or "|-" block scalar whose indicator is at column
// at; its lines are more indented than indent.
func (p *parser) literal(t string, at, indent int) *yaml.Node {
	ln := p.i
	header := t[at+1:]
	strip := strings.HasPrefix(header, "-")
	header = strings.TrimPrefix(header, "-")
	if h := strings.TrimLeft(header, " "); h != "" && (h[0] != '#' || len(h) == len(header)) {
		refuse() // an indentation indicator, "+" or text after the header
	} else if h != "" {
		p.comment(h)
	}
	p.i++
	if p.i == len(p.lines) || p.lines[p.i].text == "" && !p.lines[p.i].content {
		refuse() // leading blank lines, or no content
	}
	n := p.lines[p.i].indent
	if n <= indent {
		refuse()
	}
	var b strings.Builder
	blanks := 0
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if l.text == "" {
			blanks++
			continue
		}
		if l.indent == len(l.text) {
			refuse() // spaces only: content or not, by rules not worth repeating
		}
		if l.indent < n {
			break
		}
		b.WriteString(strings.Repeat("\n", blanks))
		blanks = 0
		b.WriteString(l.text[n:])
		b.WriteByte('\n')
	}
	if p.i == len(p.lines) && !p.terminated {
		refuse() // the last line has no line break to keep or strip
	}
	s := b.String()
	if strip {
		s = strings.TrimSuffix(s, "\n")
	}
	return p.node(yaml.ScalarNode, "!!str", s, yaml.LiteralStyle, ln, at)
}

// trailer reports that only spaces and a comment follow column end.
func trailer(t string, end int) bool {
	rest := strings.TrimLeft(t[end:], " ")
	return rest == "" || rest[0] == '#' && len(rest) < len(t)-end
}

type scalar struct {
	value, tag string
	style      yaml.Style
}

// key reads a mapping key at column col of t: a one-line plain or quoted
// scalar followed by ":" and a space or the end of the line. after is the
// column of the ":"; nil when there is no such key.
func key(t string, col int) (k *scalar, after int) {
	if col >= len(t) {
		return nil, 0
	}
	var s scalar
	end := -1
	switch t[col] {
	case '"', '\'':
		s.value, end = quoted(t, col)
		s.tag, s.style = "!!str", yaml.DoubleQuotedStyle
		if t[col] == '\'' {
			s.style = yaml.SingleQuotedStyle
		}
		if end < 0 || end >= len(t) || t[end] != ':' {
			return nil, 0
		}
	default:
		if !plainStart(t, col) {
			return nil, 0
		}
		for i := col; i < len(t); i++ {
			if t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ') {
				end = i
				break
			}
			if t[i] == '#' && t[i-1] == ' ' {
				return nil, 0
			}
		}
		if end < 0 {
			return nil, 0
		}
		s.value = strings.TrimRight(t[col:end], " ")
		if s.value == "<<" {
			return nil, 0
		}
		s.tag = resolve(s.value)
	}
	if end+1 < len(t) && t[end+1] != ' ' || end-col > 1000 {
		return nil, 0 // yaml.v3 limits a simple key to 1024 characters
	}
	return &s, end
}

// quoted reads a one-line quoted scalar starting at column col (its
// quote): its value and the column after the closing quote, -1 if it does
// not close on the line or has an escape.
func quoted(t string, col int) (string, int) {
	q := t[col]
	if q == '"' {
		i := strings.IndexAny(t[col+1:], `"\`)
		if i < 0 || t[col+1+i] == '\\' {
			return "", -1
		}
		return t[col+1 : col+1+i], col + 2 + i
	}
	var b strings.Builder
	for i := col + 1; i < len(t); i++ {
		if t[i] != '\'' {
			b.WriteByte(t[i])
			continue
		}
		if i+1 < len(t) && t[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), i + 1
	}
	return "", -1
}

// plain reads a one-line plain scalar value at column col: up to a
// comment or the end of the line, trailing spaces dropped; -1 where YAML
// would read something else (an indicator, a ": ").
func plain(t string, col int) (string, int) {
	if !plainStart(t, col) {
		return "", -1
	}
	end := len(t)
	if i := strings.Index(t[col:], " #"); i >= 0 {
		end = col + i
	}
	s := strings.TrimRight(t[col:end], " ")
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || s == "<<" {
		return "", -1
	}
	return s, col + len(s)
}

// plainStart reports whether a plain scalar may start at column col: not
// with an indicator, but with "-" before anything but a space or "-"
// ("-2", "-x").
func plainStart(t string, col int) bool {
	if t[col] == '-' {
		return col+1 < len(t) && t[col+1] != ' ' && t[col+1] != '-'
	}
	return !indicator(t[col])
}

// indicator reports YAML's indicator characters, which a plain scalar
// cannot start with (some can in YAML, not here).
func indicator(c byte) bool {
	return strings.IndexByte("-?:,[]{}#&*!|>'\"%@`", c) >= 0
}

// resolve is the tag yaml.v3 gives a plain scalar, by its own rules. A
// value whose first character is none of those its resolver looks
// further at (a sign, a digit, "." or the first letter of null, true,
// false and their kin) is a string to it at once.
func resolve(value string) string {
	if value != "" && strings.IndexByte("+-0123456789yYnNtTfFoO~<.", value[0]) < 0 {
		return "!!str"
	}
	return (&yaml.Node{Kind: yaml.ScalarNode, Value: value}).ShortTag()
}
