package clitest

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// envName is an environment variable's name as the docs and code spell
// it; envLike is a string literal that looks like one wherever it is.
var (
	envName = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*_?$`)
	envLike = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+_?$`)
)

// EnvReads returns the environment variables the main package pkg of the
// module at root may read, with the file:line of one mention, from the
// module's own packages it links (test files and build-tagged files left
// out, as in a release build): every name given as a string literal to a
// function whose name says it reads the environment (os.Getenv,
// os.LookupEnv, an injected getenv), and every string literal shaped like
// a variable with an underscore, wherever it is (the code lists the
// variables it needs in slices and maps too). Prefixes such as
// "GIT_AUTHOR_", which the code completes, end in "_".
func EnvReads(t *testing.T, root, pkg string) map[string]string {
	t.Helper()
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	list := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Module}} {{.Dir}} {{join .GoFiles \",\"}}{{end}}", pkg)
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	reads := map[string]string{}
	fset := token.NewFileSet()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "github.com/gitops-promote/gitops-promote" || strings.Contains(f[1], "testutil") {
			continue
		}
		for _, name := range strings.Split(f[2], ",") {
			file, err := parser.ParseFile(fset, filepath.Join(f[1], name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			add := func(lit *ast.BasicLit, shape *regexp.Regexp) {
				v, err := strconv.Unquote(lit.Value)
				if _, seen := reads[v]; err != nil || seen || !shape.MatchString(v) {
					return
				}
				p := fset.Position(lit.Pos())
				rel, _ := filepath.Rel(root, p.Filename)
				reads[v] = rel + ":" + strconv.Itoa(p.Line)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.BasicLit:
					if n.Kind == token.STRING {
						add(n, envLike)
					}
				case *ast.CallExpr:
					if readsEnv(n.Fun) {
						for _, a := range n.Args {
							if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
								add(lit, envName)
							}
						}
					}
				}
				return true
			})
		}
	}
	return reads
}

func readsEnv(fun ast.Expr) bool {
	var name string
	switch f := fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	default:
		return false
	}
	l := strings.ToLower(name)
	return strings.Contains(l, "getenv") || strings.Contains(l, "lookupenv")
}

// EnvRow is one row of README.md's Environment table.
type EnvRow struct {
	Line   int
	Vars   []string // the variables of its first column ("GIT_COMMITTER_*" as "GIT_COMMITTER_")
	UsedBy string   // its second column
}

// EnvTable reads the table under README.md's "## Environment".
func EnvTable(t *testing.T, root string) []EnvRow {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []EnvRow
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Environment"
			continue
		}
		cells := strings.Split(line, "|")
		if !in || len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		row := EnvRow{Line: n, UsedBy: cells[2]}
		for _, span := range codeSpans(cells[1]) {
			span = strings.TrimSuffix(span, "*")
			if envName.MatchString(span) {
				row.Vars = append(row.Vars, span)
			}
		}
		if len(row.Vars) > 0 {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		t.Fatal(`README.md has no "## Environment" table with variables: the check has gone blind`)
	}
	return rows
}

// CheckEnvDocs checks README.md's Environment table against what tool
// (the main package pkg) reads: every variable it reads is in the table,
// except those of unlisted (name, or "PREFIX_*", to why); and every variable of a row
// whose "used by" names tool (or "both") is read by tool's code, or by a
// library, as byLibrary (name to which) says.
func CheckEnvDocs(t *testing.T, root, pkg, tool string, unlisted, byLibrary map[string]string) {
	t.Helper()
	reads := EnvReads(t, root, pkg)
	documented := map[string]bool{}
	for _, row := range EnvTable(t, root) {
		used := regexp.MustCompile(`\b(` + tool + `|both)\b`).MatchString(row.UsedBy)
		for _, v := range row.Vars {
			documented[v] = true
			if !used {
				continue
			}
			if !covered(v, reads) && byLibrary[v] == "" {
				t.Errorf("README.md:%d: the Environment table says %s uses %s, which its code does not read", row.Line, tool, v)
			}
		}
	}
	var names []string
	for v := range reads {
		names = append(names, v)
	}
	sort.Strings(names)
	for _, v := range names {
		if !covered(v, documented) && excuse(v, unlisted) == "" {
			t.Errorf("%s: %s reads %s, which README.md's Environment table does not list", reads[v], tool, v)
		}
	}
	for v := range unlisted {
		if !covered(strings.TrimSuffix(v, "*"), reads) {
			t.Errorf("%s is excused from the Environment table, but %s does not read it", v, tool)
		}
	}
}

// excuse is why name may be left out of the table: unlisted[name], or
// unlisted["PREFIX_*"] for a name that starts with PREFIX_.
func excuse(name string, unlisted map[string]string) string {
	if why := unlisted[name]; why != "" {
		return why
	}
	for k, why := range unlisted {
		if p, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(name, p) {
			return why
		}
	}
	return ""
}

// covered says whether name is in set, or a prefix of it ("GIT_AUTHOR_"
// for GIT_AUTHOR_NAME) is, or name is a prefix of one of it.
func covered[V any](name string, set map[string]V) bool {
	if _, ok := set[name]; ok {
		return true
	}
	for s := range set {
		if strings.HasSuffix(s, "_") && strings.HasPrefix(name, s) || strings.HasSuffix(name, "_") && strings.HasPrefix(s, name) {
			return true
		}
	}
	return false
}
