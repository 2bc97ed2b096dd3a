package tagtargets

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTagTargets: each Makefile variable below selects, with -run, the
// tests of the files its tag builds in its target's packages; every test
// of those files must match it, or it would run nowhere (make test builds
// without the tag).
func TestTagTargets(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		variable, tag string
		dirs          []string
	}{
		{"CRASH_TESTS", "crashtest", []string{"cmd/promote"}},
		{"BUNDLED_TESTS", "bundled", []string{"internal/render", "internal/testutil/toolbin"}},
	} {
		m := regexp.MustCompile(`(?m)^` + tt.variable + ` := (.+)$`).FindSubmatch(mk)
		if m == nil {
			t.Errorf("Makefile defines no %s", tt.variable)
			continue
		}
		sel, err := regexp.Compile(strings.ReplaceAll(string(m[1]), "$$", "$"))
		if err != nil {
			t.Fatalf("%s: %v", tt.variable, err)
		}
		n := 0
		for _, dir := range tt.dirs {
			for _, name := range taggedTests(t, filepath.Join(root, dir), tt.tag) {
				n++
				if !sel.MatchString(name) {
					t.Errorf("%s in %s (tag %s) is not selected by %s = %s", name, dir, tt.tag, tt.variable, m[1])
				}
			}
		}
		if n == 0 {
			t.Errorf("no test behind tag %s in %v", tt.tag, tt.dirs)
		}
	}
}

// taggedTests lists the Test functions of dir's test files whose build
// constraint needs tag.
func taggedTests(t *testing.T, dir, tag string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(src), "\n")
		expr, err := constraint.Parse(first)
		if err != nil || expr.Eval(func(string) bool { return false }) || !expr.Eval(func(s string) bool { return s == tag }) {
			continue // untagged, or not needing this tag
		}
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				out = append(out, fn.Name.Name)
			}
		}
	}
	return out
}
