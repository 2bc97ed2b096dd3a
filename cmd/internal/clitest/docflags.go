package clitest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Flags maps every flag of a command tree, "--name" and "-x", to whether
// it takes a value.
type Flags map[string]bool

// TreeFlags are the flags of every command of root.
func TreeFlags(root *cobra.Command) Flags {
	out := Flags{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.InheritedFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				value := f.NoOptDefVal == ""
				out["--"+f.Name] = out["--"+f.Name] || value
				if f.Shorthand != "" {
					out["-"+f.Shorthand] = out["-"+f.Shorthand] || value
				}
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// helpFlag is a flag line of cobra's help: "  -o, --output text|json  ..."
// or "      --push   ...".
var helpFlag = regexp.MustCompile(`^\s+(?:-(\w), )?--([\w-]+)( \S+)?\s{2,}`)

// HelpFlags reads the flags of a built tool from its --help and that of
// each verb the root's help lists.
func HelpFlags(t *testing.T, bin string) Flags {
	t.Helper()
	out := Flags{}
	verbs := []string{""}
	_, list, _ := strings.Cut(run(t, bin, "--help"), "\nAvailable Commands:\n")
	for _, line := range strings.Split(list, "\n") {
		if strings.TrimSpace(line) == "" {
			break
		}
		verbs = append(verbs, strings.Fields(line)[0])
	}
	if len(verbs) < 3 {
		t.Fatalf("%s --help lists the verbs %v", bin, verbs[1:])
	}
	for _, verb := range verbs {
		args := strings.Fields(verb + " --help")
		for _, line := range strings.Split(run(t, bin, args...), "\n") {
			m := helpFlag.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			value := m[3] != ""
			out["--"+m[2]] = out["--"+m[2]] || value
			if m[1] != "" {
				out["-"+m[1]] = out["-"+m[1]] || value
			}
		}
	}
	return out
}

// CheckDocFlags checks every inline code span of README.md and docs/*.md
// that is a flag ("`--force-path`", "`--push-timeout 5m`",
// "`-o/--output`", "`--override-*`" for some flags), in prose and tables alike, outside code blocks
// (CheckDocs reads those): the flag is one of tools' flags, or of another
// program named in foreign (flag to program: helm's --set, go test's
// -update), and a flag that takes no value is not shown with one.
func CheckDocFlags(t *testing.T, root string, tools Flags, foreign map[string]string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range append([]string{filepath.Join(root, "README.md")}, files...) {
		rel, _ := filepath.Rel(root, path)
		for _, s := range flagSpans(t, path) {
			args := strings.Fields(s.text)
			for _, flag := range strings.Split(args[0], "/") {
				name, inline, hasInline := strings.Cut(flag, "=")
				if foreign[name] != "" {
					continue
				}
				checked++
				value, ok := tools[name]
				if prefix, glob := strings.CutSuffix(name, "*"); glob { // "--override-*": a family of flags
					ok = false
					for f := range tools {
						ok = ok || strings.HasPrefix(f, prefix) && len(f) > len(prefix)
					}
					value = true
				}
				switch {
				case !ok:
					t.Errorf("%s:%d: `%s`: %s is no flag of promote or manifestdiff", rel, s.line, s.text, name)
				case !value && (len(args) > 1 || hasInline && inline != "true" && inline != "false"):
					t.Errorf("%s:%d: `%s`: %s takes no value", rel, s.line, s.text, name)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no flag found in the docs' code spans: the check has gone blind")
	}
}

// flagStart is how a flag span starts ("-o", "--push"; not "---" or "-<env>").
var flagStart = regexp.MustCompile(`^--?[A-Za-z]`)

type span struct {
	line int
	text string
}

// flagSpans are the inline code spans of path, outside fenced blocks,
// that start with a flag.
func flagSpans(t *testing.T, path string) []span {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []span
	fence := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := fenceMarker(strings.TrimSpace(line)); m != "" {
			switch {
			case fence == "":
				fence = m
				continue
			case m[0] == fence[0] && len(m) >= len(fence) && m == strings.TrimSpace(line):
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		for _, s := range codeSpans(line) {
			if flagStart.MatchString(s) {
				out = append(out, span{n, s})
			}
		}
	}
	return out
}
