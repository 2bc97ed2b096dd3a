package patch

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzApply edits the pick-th scalar of a random file. Apply must not
// panic, must fail only with the package's errors, and when it succeeds an
// independent parser (go.yaml.in/yaml/v4, not the yaml.v3 one Apply
// verifies with) must see exactly the requested change.
func FuzzApply(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, pick uint16, newValue string) {
		targets := allTargets(data)
		if len(targets) == 0 {
			return
		}
		checkApply(t, data, targets[int(pick)%len(targets)], newValue)
	})
}

// TestApplyEveryScalar runs the fuzz checks on every scalar of every
// golden input with a few awkward values.
func TestApplyEveryScalar(t *testing.T) {
	inputs := CommittedCorpus(t, "FuzzApply")
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.in.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
	}
	for _, data := range inputs {
		for _, tg := range allTargets(data) {
			for _, v := range []string{"9.9.9", "1.10", "yes", "a: b, c", "it's \"q\"", "", "x\ny", "ü"} {
				checkApply(t, data, tg, v)
			}
		}
	}
}

// checkApply sets tg to newValue and checks the result like FuzzApply.
func checkApply(t *testing.T, data []byte, tg Target, newValue string) {
	t.Helper()
	out, err := Apply(data, []Change{{Target: tg, New: newValue}})
	if err != nil {
		if !isSentinel(err) {
			t.Fatalf("Apply error without a sentinel: %v", err)
		}
		return
	}
	if newValue == tg.Value {
		if !bytes.Equal(out, data) {
			t.Fatalf("no-op changed the file:\n%q\n%q", data, out)
		}
		return
	}
	checkOneLineDiff(t, data, out)
	checkOracle(t, data, out, tg, newValue)
}

// FuzzHelmSources checks HelmSources never panics, and that re-applying
// every revision it reports as is leaves the file untouched.
func FuzzHelmSources(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		srcs, err := HelmSources(data)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("HelmSources error without a sentinel: %v", err)
			}
			return
		}
		var changes []Change
		for _, s := range srcs {
			if s.HasRevision {
				changes = append(changes, Change{Target: s.Revision, New: s.Revision.Value})
			}
		}
		out, err := Apply(data, changes)
		if err != nil {
			// A file can list one source twice (spec.source and an alias
			// to it), which Apply rightly refuses.
			return
		}
		if !bytes.Equal(out, data) {
			t.Fatalf("no-op changes altered the file")
		}
	})
}

func isSentinel(err error) bool {
	for _, s := range []error{ErrNotFound, ErrNotScalar, ErrUnsupported, ErrVerify, ErrParse, ErrDuplicateKey} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// allTargets lists every scalar value of data (keys excluded) as a Target.
func allTargets(data []byte) []Target {
	t, err := parse(data)
	if err != nil {
		return nil
	}
	var out []Target
	var walk func(n *yaml.Node, doc int)
	walk = func(n *yaml.Node, doc int) {
		if r := resolve(n); r != nil && r.Kind == yaml.ScalarNode && n.Line > 0 {
			out = append(out, t.newTarget(n, doc))
		}
		for i, c := range n.Content {
			if n.Kind != yaml.MappingNode || i%2 == 1 {
				walk(c, doc)
			}
		}
	}
	for i, d := range t.docs {
		walk(d, i)
	}
	return out
}

// checkOneLineDiff checks the changed bytes lie on one line of each file.
func checkOneLineDiff(t *testing.T, old, out []byte) {
	t.Helper()
	p := len(commonPrefix(string(old), string(out)))
	s := 0
	for s < len(old)-p && s < len(out)-p && old[len(old)-1-s] == out[len(out)-1-s] {
		s++
	}
	for _, region := range [][]byte{old[p : len(old)-s], out[p : len(out)-s]} {
		if bytes.ContainsAny(region, "\r\n") {
			t.Fatalf("edit spans lines: %q -> %q", old[p:len(old)-s], out[p:len(out)-s])
		}
	}
}

func commonPrefix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[:i]
}
