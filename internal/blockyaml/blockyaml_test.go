package blockyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// v3Docs parses data as argo's splitDocs does with yaml.v3.
func v3Docs(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(n.Content) == 0 {
			docs = append(docs, nil)
			continue
		}
		docs = append(docs, n.Content[0])
	}
}

// diffNodes describes the first difference between two trees, comments
// aside; "" when they are equal.
func diffNodes(path string, want, got *yaml.Node) string {
	if want == nil || got == nil {
		if want != got {
			return fmt.Sprintf("%s: yaml.v3 %v, Parse %v", path, want, got)
		}
		return ""
	}
	type fields struct {
		Kind          yaml.Kind
		Style         yaml.Style
		Tag, Value    string
		Anchor        string
		Alias         *yaml.Node
		Line, Column  int
		CommentInited bool
	}
	w := fields{want.Kind, want.Style, want.Tag, want.Value, want.Anchor, want.Alias, want.Line, want.Column, false}
	g := fields{got.Kind, got.Style, got.Tag, got.Value, got.Anchor, got.Alias, got.Line, got.Column,
		got.HeadComment != "" || got.LineComment != "" || got.FootComment != ""}
	if w != g {
		return fmt.Sprintf("%s: yaml.v3 %+v, Parse %+v", path, w, g)
	}
	if len(want.Content) != len(got.Content) {
		return fmt.Sprintf("%s: yaml.v3 has %d children, Parse %d", path, len(want.Content), len(got.Content))
	}
	if (want.Content == nil) != (got.Content == nil) {
		return fmt.Sprintf("%s: yaml.v3 Content nil %v, Parse %v", path, want.Content == nil, got.Content == nil)
	}
	for i := range want.Content {
		if d := diffNodes(fmt.Sprintf("%s/%d", path, i), want.Content[i], got.Content[i]); d != "" {
			return d
		}
	}
	return ""
}

// check compares Parse with yaml.v3 on data and reports whether Parse
// accepted it.
func check(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := Parse(data)
	if !ok {
		return false
	}
	want, err := v3Docs(data)
	if err != nil {
		t.Fatalf("Parse accepted what yaml.v3 refuses (%v):\n%s", err, data)
	}
	if len(want) != len(got) {
		t.Fatalf("yaml.v3 reads %d documents, Parse %d:\n%s", len(want), len(got), data)
	}
	for i := range want {
		if d := diffNodes(fmt.Sprint(i), want[i], got[i]); d != "" {
			t.Fatalf("%s\nin:\n%s", d, data)
		}
	}
	checkComments(t, data)
	return true
}

// checkComments checks that ParseComments lists every comment yaml.v3
// attaches to the nodes (one per line), and nothing that is not a
// comment: internal/patch's verifier compares these lists to notice a
// comment an edit lost or altered. yaml.v3 drops a few (those of a file
// with no document, an empty "#" in some places), which the list keeps.
func checkComments(t *testing.T, data []byte) {
	t.Helper()
	docs, got, ok := ParseComments(data)
	if !ok {
		t.Fatalf("ParseComments refused what Parse accepts:\n%s", data)
	}
	if plain, _ := Parse(data); len(plain) != len(docs) {
		t.Fatalf("ParseComments reads %d documents, Parse %d", len(docs), len(plain))
	}
	left := map[string]int{}
	for _, c := range got {
		if !strings.HasPrefix(c, "#") || strings.Contains(c, "\n") {
			t.Fatalf("ParseComments listed %q, not a one-line comment\nin:\n%s", c, data)
		}
		left[c]++
	}
	for _, c := range v3Comments(t, data) {
		if left[c] == 0 {
			t.Fatalf("yaml.v3 has comment %q, ParseComments lists %q\nin:\n%s", c, got, data)
		}
		left[c]--
	}
}

// v3Comments lists every comment line yaml.v3 keeps, sorted.
func v3Comments(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range [...]string{n.HeadComment, n.LineComment, n.FootComment} {
			for _, l := range strings.Split(c, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					out = append(out, l)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		walk(&n)
	}
	slices.Sort(out)
	return out
}

func TestParseEqualsYAMLv3(t *testing.T) {
	for _, tc := range []struct {
		yaml   string
		accept bool
	}{
		{"", true},
		{"\n# only a comment\n", true},
		{"a: 1\n", true},
		{"a:\nb: 1\n", true},
		{"a:   \nb: # c\nc:\n", true},
		{"a: 1\n---\n", true},
		{"---\n---\na: 1\n", true},
		{"0:\n... :\n", false}, // a document end marker inside a mapping (found by FuzzDecodeIndexEqualsUnmarshal)
		{"a:\n...\n", false},
		{"--- # c\na: 1\n---\nb: 2", true},
		{"-\n- a\n-   # c\n- b: 1\n  c: 2\n", true},
		{"a:\n- x\n- \nb:\n  c:\n", true},
		{"a: {}\nb: []\nc: [ ]\nd: { }\n", true},
		{"a: |\n  x\n  y\n\nb: |-\n    z\n\n\nc: | # c\n  # not a comment\n", true},
		{"a: 'x''y'\nb: \"q\" # c\n'c': \"d\"\n\"e\": f\n", true},
		{"a: b\n  # c\nd: e\n", true},
		{"a: http://x:1/y#z\nb: -2\nc: ~\nd: 2001-12-14\ne: 0x1f\nf: .inf\ng: True\nh: a b  #c\n", true},
		{"  a: 1\n  b:\n  - x\n", true},
		{"a: |\n  x", false},        // no final line break
		{"a: 1\n---", false},        // an empty document at the end without one
		{"a: b\n  c\n", false},      // a multi-line plain scalar
		{"a: &x 1\nb: *x\n", false}, // anchors
		{"a: !t 1\n", false},        // tags
		{"a: [1]\n", false},         // flow content
		{"a: >\n  x\n", false},      // folded
		{"a: \"x\\ty\"\n", false},   // escapes
		{"a:\tb\n", false},          // tabs
		{"a: é\n", false},           // non-ASCII
		{"<<: {a: 1}\n", false},     // merge key
		{"a: b: c\n", false},        // an error in YAML
		{"a: 1\n  b: 2\n", false},   // an error in YAML
		{"a: 1\n- b\n", false},      // an error in YAML
		{"a: |\n  x\n # c\n  y\n", false},
		{"a: |\n  x\n   \n  y\n", false},
		{"a: |\n\n  x\n", false},
		{"...\n", false},
		{"%YAML 1.2\n---\na: 1\n", false},
		{"--- a\n", false},
		{"scalar\n", false},
	} {
		if got := check(t, []byte(tc.yaml)); got != tc.accept {
			t.Errorf("Parse(%q) accepted %v, want %v", tc.yaml, got, tc.accept)
		}
	}
}

// The repository's own YAML files: Parse must agree with yaml.v3 on all
// it accepts, and accept every manifest of the generated repository (the
// bench's layout, which is the users'), else it saves nothing.
func TestParseRepositoryYAML(t *testing.T) {
	accepted, total, manifests, manifestsAccepted := 0, 0, 0, 0
	generated := 0
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		total++
		ok := check(t, data)
		if ok {
			accepted++
		}
		if strings.Contains(filepath.ToSlash(p), "/argocd/") {
			manifests++
			if ok {
				manifestsAccepted++
			}
		}
		if strings.Contains(filepath.ToSlash(p), "/genrepo/argocd/") {
			generated++
			if !ok {
				t.Errorf("%s: refused, yet it is a generated manifest", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("accepted %d of %d YAML files, %d of %d argocd manifests", accepted, total, manifestsAccepted, manifests)
	if generated < 20 {
		t.Errorf("found only %d generated manifests", generated)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a:\n- x\n- \nb:\n  c:\n", "- a: |\n    x\n  b: 'y'\n---\n", "a: {}\nb: [ ]\n",
		"k: -2 # c\n\"q\": \"v\"\n", "---\n---\n"} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("../ordering/testdata/genrepo/argocd/*/*.yaml")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, data)
	})
}

// resolve's shortcut must agree with yaml.v3's resolver for every first
// character.
func TestResolveShortcut(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, rest := range []string{"", "x", "1", "rue", "ull", "0", ".5", "<"} {
			v := string(rune(c)) + rest
			if c >= 0x80 {
				v = string([]byte{byte(c)}) + rest
			}
			if got, want := resolve(v), (&yaml.Node{Kind: yaml.ScalarNode, Value: v}).ShortTag(); got != want {
				t.Errorf("resolve(%q) = %s, yaml.v3 %s", v, got, want)
			}
		}
	}
}

// gen writes YAML in and around the subset from the bytes of a fuzz
// input, so that FuzzParseGenerated mostly tries documents Parse
// accepts, where their nodes must equal yaml.v3's.
type gen struct {
	src []byte
	out strings.Builder
}

func (g *gen) next(n int) int {
	if len(g.src) == 0 || n <= 0 {
		return 0
	}
	b := g.src[0]
	g.src = g.src[1:]
	return int(b) % n
}

var (
	genScalars = []string{"a", "b c", "x-y", "http://h:1/p", "1", "-2", "0x1f", "1.5", ".inf", "true", "False", "yes", "~", "null", "2001-12-14",
		"'q'", "'it''s'", "\"d\"", "\"\"", "''", "a#b", "-x", "a:b", "$values/x", "\"{{x}}\"", "=", "+1", "0o17", "0b1", "1_000",
		"a.b/c", "x_y", "Z", "O", "o", "n", "-.inf", "+.5", "0", "00", "1e3", "-0b1", "a ' b", "a \" b", "a, b", "a]", "a}b", "'#'", "\" # \""}
	// genRare are outside the subset or odd: a few per document.
	genRare = []string{"", "{}", "[]", "[ ]", "{ }", "-", "--", "{{path.basename}}", "<<", "a: b", "*x", "&x a", "!t a", "[a]", "a\tb", "\"\\n\"", "é", "?", ":", "...", "---", "%x", "@x", "`x`", "'a", "a #", "a # b"}
)

func (g *gen) scalar() string {
	if g.next(40) == 39 {
		return genRare[g.next(len(genRare))]
	}
	return genScalars[g.next(len(genScalars))]
}

func (g *gen) spaces() string { return strings.Repeat(" ", g.next(3)) }

func (g *gen) comment() string {
	switch g.next(6) {
	case 0:
		return " # c"
	case 1:
		return g.spaces()
	}
	return ""
}

// node writes a block node at indentation ind; inline tells whether it
// follows a "key:" or "- " on the current line.
func (g *gen) node(ind, depth int, compactOK bool) {
	switch k := g.next(6); {
	case depth > 3 || k < 2:
		g.out.WriteString(" " + g.spaces() + g.scalar() + g.comment() + "\n")
	case k == 2:
		g.out.WriteString(" |" + []string{"", "-", "", "-", "", "-", "+", "2", "", "-", "", "-"}[g.next(12)] + g.comment() + "\n")
		n := ind + 1 + g.next(3)
		for i, lines := 0, 1+g.next(3); i < lines; i++ {
			if i > 0 && g.next(4) == 0 {
				g.out.WriteString("\n")
			}
			g.out.WriteString(strings.Repeat(" ", n+g.next(2)) + g.scalar() + "\n")
		}
	case k == 3:
		g.out.WriteString(g.comment() + "\n")
		sub := ind + 1 + g.next(3)
		if compactOK && g.next(2) == 0 {
			sub = ind
		}
		g.seq(sub, depth+1)
	default:
		g.out.WriteString(g.comment() + "\n")
		g.mapping(ind+1+g.next(3), depth+1)
	}
}

func (g *gen) mapping(ind, depth int) {
	for i, n := 0, 1+g.next(4); i < n; i++ {
		if g.next(8) == 0 {
			g.out.WriteString(strings.Repeat(" ", g.next(6)) + "# comment\n")
		}
		g.out.WriteString(strings.Repeat(" ", ind) + g.scalar() + ":")
		g.node(ind, depth, true)
	}
}

func (g *gen) seq(ind, depth int) {
	for i, n := 0, 1+g.next(3); i < n; i++ {
		g.out.WriteString(strings.Repeat(" ", ind) + "-")
		if g.next(3) == 0 {
			g.out.WriteString(" " + g.scalar() + ":")
			g.node(ind+2, depth, true)
			g.mapping(ind+2, depth+1)
			continue
		}
		g.node(ind, depth, false)
	}
}

func FuzzParseGenerated(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("ApplicationSet with generators and a template"))
	f.Fuzz(func(t *testing.T, src []byte) {
		g := &gen{src: src}
		for d, docs := 0, 1+g.next(3); d < docs; d++ {
			if d > 0 || g.next(2) == 0 {
				g.out.WriteString("---" + g.comment() + "\n")
			}
			if g.next(6) == 0 {
				continue // an empty document
			}
			if g.next(4) == 0 {
				g.seq(0, 0)
			} else {
				g.mapping(0, 0)
			}
		}
		check(t, []byte(g.out.String()))
	})
}
