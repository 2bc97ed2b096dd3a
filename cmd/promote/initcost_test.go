package main

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoRegexpCompiledAtInit: no package of this module that promote links
// compiles a regular expression at init (a package-level var or an init
// function), which every run of promote pays before main, whatever it
// does. A string test or a sync.OnceValue compiled on first use does the
// same work only when needed. SanitizeName's expression came back once in
// a merge; this keeps the whole class out.
func TestNoRegexpCompiledAtInit(t *testing.T) {
	const module = "github.com/gitops-promote/gitops-promote"
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var visit func(dir string)
	visit = func(dir string) {
		if seen[dir] {
			return
		}
		seen[dir] = true
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("reading %s: %v", dir, err)
		}
		for _, name := range pkg.GoFiles {
			for _, at := range regexpsAtInit(t, filepath.Join(dir, name)) {
				rel, _ := filepath.Rel(root, at)
				t.Errorf("%s compiles a regular expression at init; use a string test or sync.OnceValue", rel)
			}
		}
		for _, imp := range pkg.Imports {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				visit(filepath.Join(root, filepath.FromSlash(rest)))
			}
		}
	}
	visit(filepath.Join(root, "cmd", "promote"))
	if len(seen) < 10 {
		t.Fatalf("only %d packages visited: the walk lost its way", len(seen))
	}
}

// regexpsAtInit returns the positions in file of regexp compilations run
// at package init: in package-level var values outside function literals,
// and anywhere in init functions.
func regexpsAtInit(t *testing.T, file string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", file, err)
	}
	pkgName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "regexp" {
			pkgName = "regexp"
			if imp.Name != nil {
				pkgName = imp.Name.Name
			}
		}
	}
	if pkgName == "" || pkgName == "_" {
		return nil
	}
	var found []string
	find := func(n ast.Node, intoFuncLits bool) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return intoFuncLits
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == pkgName && strings.Contains(sel.Sel.Name, "Compile") {
						found = append(found, fset.Position(n.Pos()).String())
					}
				}
			}
			return true
		})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				for _, s := range d.Specs {
					for _, v := range s.(*ast.ValueSpec).Values {
						find(v, false)
					}
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				find(d.Body, true)
			}
		}
	}
	return found
}
