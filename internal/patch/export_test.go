package patch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The package-level forms tests use: the product parses a file once
// (Parse) and calls the File's methods.

func Apply(data []byte, changes []Change) ([]byte, error) {
	if len(changes) == 0 {
		return bytes.Clone(data), nil
	}
	f, err := Parse(data)
	if err != nil {
		return nil, err
	}
	return f.Apply(changes)
}

func Find(data []byte, keyPath []string) (Target, error) {
	if len(keyPath) == 0 {
		return Target{}, errEmptyPath
	}
	f, err := Parse(data)
	if err != nil {
		return Target{}, err
	}
	return f.Find(keyPath)
}

func HelmSources(data []byte) ([]HelmSource, error) {
	f, err := Parse(data)
	if err != nil {
		return nil, err
	}
	return f.HelmSources()
}

// At returns the scalar value at a position the parser reports (document,
// line and character column, as in Target), for selectors that find
// nodes by other means (yqSelect). Mapping keys are never
// targets; a position holding a mapping or sequence is ErrNotScalar.
func (f *File) At(doc, line, col int) (Target, error) {
	p := pos{doc, line, col}
	nodes := map[pos]*yaml.Node{p: nil}
	locateNodes(f.t.docs, nodes)
	n := nodes[p]
	if n == nil {
		return Target{}, fmt.Errorf("no value at document %d line %d column %d: %w", doc, line, col, ErrNotFound)
	}
	if r := resolve(n); r == nil || r.Kind != yaml.ScalarNode {
		return Target{}, fmt.Errorf("%s line %d: %w", f.t.pathOf(n), line, ErrNotScalar)
	}
	return f.t.newTarget(n, doc), nil
}

// Docs is the number of documents in the file, as Target.Doc counts them.
func (f *File) Docs() int { return len(f.t.docs) }

// CommittedCorpus returns the YAML inputs of the committed corpus of fuzzer
// (a glob: "*" is every fuzzer's).
func CommittedCorpus(t testing.TB, fuzzer string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", fuzzer, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var inputs [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "[]byte(") {
			t.Fatalf("%s: unexpected corpus format", f)
		}
		data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		inputs = append(inputs, []byte(data))
	}
	return inputs
}
