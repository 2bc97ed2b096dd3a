package patch_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mikefarah/yq/v4/pkg/yqlib"
	yamlv3 "go.yaml.in/yaml/v3"
	yamlv4 "go.yaml.in/yaml/v4"

	"github.com/gitops-promote/gitops-promote/internal/patch"
)

func TestSelect(t *testing.T) {
	const in = "images:\n- {name: a, tag: v1}\n- name: b\n  tag: \"v2\"\nmap: {k: v}\n---\nimages: []\n"
	tests := []struct {
		name    string
		expr    string
		want    []string // Path=Value per target
		wantErr error
	}{
		{name: "all tags", expr: ".images[].tag", want: []string{"images[0].tag=v1", "images[1].tag=v2"}},
		{name: "filter", expr: `.images[] | select(.name == "b") | .tag`, want: []string{"images[1].tag=v2"}},
		{name: "duplicates once", expr: ".images[0].tag, .images[0].tag", want: []string{"images[0].tag=v1"}},
		{name: "missing", expr: ".nope.deeper", wantErr: patch.ErrNotFound},
		{name: "mapping", expr: ".map", wantErr: patch.ErrNotScalar},
		{name: "mapping key", expr: ".map.k | key", wantErr: patch.ErrUnsupported},
		{name: "computed", expr: `.images[0].tag + "x"`, wantErr: patch.ErrUnsupported},
		{name: "env is disabled", expr: `env(HOME)`, wantErr: nil},
		{name: "bad expression", expr: ".images[", wantErr: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			targets, err := yqSelect([]byte(in), tc.expr)
			if tc.want == nil && tc.wantErr == nil {
				// Errors without a sentinel: only that they fail.
				if err == nil {
					t.Fatalf("yqSelect(%s) succeeded with %v", tc.expr, targets)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			var got []string
			for _, tg := range targets {
				got = append(got, tg.Path+"="+tg.Value)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Select (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPositionsMatchYqlib: for every scalar of every golden and fuzz-corpus
// input, the target patch reports at yqlib's position is the node yqlib
// has there (same value, style and path). patch parses with yaml.v3 and
// yqlib with yaml/v4, which split a few odd inputs differently (`{a:}`,
// a block scalar of a lone comment); where the two parsers build the
// same tree, an expression and an edit point at the same bytes.
func TestPositionsMatchYqlib(t *testing.T) {
	checked := 0
	for _, data := range yqCorpus(t) {
		checked += checkPositions(t, data)
	}
	if checked < 500 {
		t.Fatalf("only %d scalars checked", checked)
	}
}

// FuzzPositionsMatchYqlib is TestPositionsMatchYqlib on any input both
// parsers read alike.
func FuzzPositionsMatchYqlib(f *testing.F) {
	for _, data := range yqCorpus(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkPositions(t, data) })
}

// checkPositions compares patch's targets with yqlib's nodes on data and
// returns how many scalars it compared.
func checkPositions(t *testing.T, data []byte) int {
	if !sameParse(data) {
		return 0
	}
	f, err := patch.Parse(data)
	docs, yerr := yqDecode(data)
	if err != nil && (errors.Is(err, patch.ErrDuplicateKey) || errors.Is(err, patch.ErrUnsupported)) {
		return 0 // refusals of patch's own, on top of the parser
	}
	if (err == nil) != (yerr == nil) {
		t.Fatalf("%q: patch.Parse error %v, yqlib %v", data, err, yerr)
	}
	if err != nil {
		return 0
	}
	if len(docs) != f.Docs() {
		t.Fatalf("%q: %d documents, yqlib %d", data, f.Docs(), len(docs))
	}
	checked := 0
	for i, d := range docs {
		yqWalk(d, func(n *yqlib.CandidateNode) {
			r := n
			for j := 0; r != nil && r.Kind == yqlib.AliasNode && j < 1000; j++ {
				r = r.Alias
			}
			if n.Line == 0 || yqKeyOf(n) != nil || r == nil || r.Kind != yqlib.ScalarNode {
				return
			}
			got, err := f.At(i, n.Line, n.Column)
			if err != nil {
				t.Fatalf("%q: At(%d, %d, %d): %v", data, i, n.Line, n.Column, err)
			}
			if got.Value != r.Value || got.Path != yqPath(n) || got.Style != yqStyle(n) {
				t.Errorf("%q: at %d:%d patch has %s=%q (%s), yqlib %s=%q (%s)", data, n.Line, n.Column,
					got.Path, got.Value, got.Style, yqPath(n), r.Value, yqStyle(n))
			}
			checked++
		})
	}
	return checked
}

func yqWalk(n *yqlib.CandidateNode, fn func(*yqlib.CandidateNode)) {
	fn(n)
	for _, c := range n.Content {
		yqWalk(c, fn)
	}
}

// yqPath is the display path from yqlib's parent links.
func yqPath(n *yqlib.CandidateNode) string {
	var parts []string
	for ; n.Parent != nil; n = n.Parent {
		switch {
		case n.Parent.Kind == yqlib.SequenceNode:
			parts = append([]string{"[" + n.Key.Value + "]"}, parts...)
		case n.Key != nil:
			k := n.Key.Value
			if k == "" || strings.ContainsAny(k, ".[]\" \t\n\r") {
				k = "[" + strconv.Quote(k) + "]"
			}
			parts = append([]string{k}, parts...)
		}
	}
	var b strings.Builder
	for _, p := range parts {
		if b.Len() > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	if b.Len() == 0 {
		return "."
	}
	return b.String()
}

func yqStyle(n *yqlib.CandidateNode) string {
	switch {
	case n.Kind == yqlib.AliasNode:
		return "alias"
	case n.Style&yqlib.DoubleQuotedStyle != 0:
		return "double"
	case n.Style&yqlib.SingleQuotedStyle != 0:
		return "single"
	case n.Style&yqlib.LiteralStyle != 0:
		return "literal"
	case n.Style&yqlib.FoldedStyle != 0:
		return "folded"
	}
	return "plain"
}

// corpus is patch's golden inputs and both fuzz corpora.
func yqCorpus(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	golden, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.yaml"))
	for _, f := range golden {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	seeds := patch.CommittedCorpus(t, "*")
	out = append(out, seeds...)
	if len(golden) == 0 || len(seeds) == 0 {
		t.Fatal("no corpus")
	}
	return out
}

// sameParse reports whether yaml.v3 and yaml/v4 read data alike: both
// fail, or both build trees of the same kinds, styles, values, anchors,
// aliases and positions.
func sameParse(data []byte) bool {
	a, errA := dumpV3(data)
	b, errB := dumpV4(data)
	return (errA == nil) == (errB == nil) && a == b
}

func dumpV3(data []byte) (string, error) {
	var b strings.Builder
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	var dump func(n *yamlv3.Node)
	dump = func(n *yamlv3.Node) {
		fmt.Fprintf(&b, "(%d %d %q %q %d:%d", n.Kind, n.Style, n.Value, n.Anchor, n.Line, n.Column)
		if n.Alias != nil {
			fmt.Fprintf(&b, " ->%d:%d", n.Alias.Line, n.Alias.Column)
		}
		for _, c := range n.Content {
			dump(c)
		}
		b.WriteString(")")
	}
	for {
		var n yamlv3.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			return b.String(), nil
		} else if err != nil {
			return "", err
		}
		dump(&n)
	}
}

func dumpV4(data []byte) (string, error) {
	var b strings.Builder
	dec := yamlv4.NewDecoder(bytes.NewReader(data))
	var dump func(n *yamlv4.Node)
	dump = func(n *yamlv4.Node) {
		fmt.Fprintf(&b, "(%d %d %q %q %d:%d", n.Kind, n.Style, n.Value, n.Anchor, n.Line, n.Column)
		if n.Alias != nil {
			fmt.Fprintf(&b, " ->%d:%d", n.Alias.Line, n.Alias.Column)
		}
		for _, c := range n.Content {
			dump(c)
		}
		b.WriteString(")")
	}
	for {
		var n yamlv4.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			return b.String(), nil
		} else if err != nil {
			return "", err
		}
		dump(&n)
	}
}
