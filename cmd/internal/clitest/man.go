package clitest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
)

// markdownish is a word of help text that markdown would read as markup
// (a tag, emphasis, a code span, a link, an entity, an escape).
var markdownish = regexp.MustCompile("\\S*[\\\\`*_<>\\[\\]&]\\S*")

// ManPages writes the man pages of the main package pkg (e.g.
// "./cmd/promote") of the module at root as `make man` does, with -tags
// mangen, into a temporary directory it returns.
func ManPages(t *testing.T, root, pkg string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the tool with -tags mangen; run without -short")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "-tags", "mangen", pkg, "man", dir)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1790000000")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run -tags mangen %s man: %v\n%s", pkg, err, out)
	}
	return dir
}

// CheckManPages checks the pages in dir (ManPages): each command's page
// says every word of its help that markdown would take as markup ("<app>",
// "versions/*.yaml"), as --help shows it, and each of known (page name,
// e.g. "promote-status", to text). newRoot builds the tree whose help the
// pages must carry.
func CheckManPages(t *testing.T, dir string, newRoot func(*cli.IOStreams) *cobra.Command, known map[string][]string) {
	t.Helper()
	pages := map[string]string{}
	var checked int
	walkTree(newRoot(&cli.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}), func(c *cobra.Command) {
		name := strings.ReplaceAll(c.CommandPath(), " ", "-")
		raw, err := os.ReadFile(filepath.Join(dir, name+".1"))
		if err != nil {
			t.Errorf("no man page for %q: %v", c.CommandPath(), err)
			return
		}
		page := roffText(string(raw))
		pages[name] = page
		for _, w := range helpWords(c) {
			checked++
			if !strings.Contains(page, w) {
				t.Errorf("%s.1 lacks %q, which `%s --help` shows", name, w, c.CommandPath())
			}
		}
	})
	for name, texts := range known {
		page, ok := pages[name]
		if !ok {
			t.Errorf("no man page %s.1", name)
		}
		for _, text := range texts {
			if !strings.Contains(page, text) {
				t.Errorf("%s.1 lacks %q", name, text)
			}
		}
	}
	if checked == 0 {
		t.Error("no help word with markdown characters was checked: the check has gone blind")
	}
}

// walkTree visits every command that gets a man page (cobra/doc's rule).
func walkTree(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			walkTree(sub, f)
		}
	}
}

// helpWords are the words of c's help with markdown characters: its
// descriptions and its flags' usages as --help prints them.
func helpWords(c *cobra.Command) []string {
	texts := []string{c.Short, c.Long, c.Example}
	for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.InheritedFlags()} {
		fs.VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Deprecated != "" {
				return
			}
			_, usage := pflag.UnquoteUsage(f)
			texts = append(texts, usage)
		})
	}
	return markdownish.FindAllString(strings.Join(texts, "\n"), -1)
}

// roffText undoes go-md2man's roff: font changes and escapes.
var roffEscape = strings.NewReplacer(`\fB`, "", `\fI`, "", `\fP`, "", `\fR`, "", `\&`, "", `\-`, "-", `\\`, `\`, `\e`, `\`, `\(aq`, "'", `\(ga`, "`")

func roffText(s string) string { return roffEscape.Replace(s) }
