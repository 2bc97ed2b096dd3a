package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// MarkdownForMan makes the help text of a command tree say in its man
// pages what --help says. cobra/doc hands help text to go-md2man as
// markdown, where it is plain text: "<app>" would be an HTML tag and
// vanish, "versions/*.yaml, argocd/*.yaml" would lose its stars to
// emphasis, "`go version -m`" its backticks. It escapes those characters
// in every command's short and long description and in every flag's usage
// (unquoted as --help shows it: "from `DIR`" reads "from DIR"), and leaves
// indented code blocks, where markdown takes text literally, and the
// examples, which cobra/doc fences, as they are. It changes the tree: the
// man verb runs it on a tree built for writing the pages, not for use.
func MarkdownForMan(root *cobra.Command) {
	seen := map[*pflag.Flag]bool{} // a persistent flag is shared by every verb below it
	walk(root, func(c *cobra.Command) {
		c.Short = escapeMarkdownLine(c.Short)
		c.Long = escapeMarkdown(c.Long)
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.InheritedFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if seen[f] {
					return
				}
				seen[f] = true
				_, usage := pflag.UnquoteUsage(f)
				f.Usage = escapeMarkdown(usage)
			})
		}
	})
}

// escapeMarkdown escapes the prose lines of text. A line indented by a tab
// or four spaces after a blank line, or after such a line, is code.
func escapeMarkdown(text string) string {
	lines := strings.Split(text, "\n")
	code, blank := false, true
	for i, l := range lines {
		indented := strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "    ")
		switch {
		case strings.TrimSpace(l) == "":
			blank = true
			continue
		case indented && (code || blank):
			code = true
		default:
			code = false
			lines[i] = escapeMarkdownLine(l)
		}
		blank = false
	}
	return strings.Join(lines, "\n")
}

// mdSpecial are the characters whose markdown meaning drops or hides text
// (an HTML tag, emphasis, a code span, a link, an entity, an escape);
// blackfriday takes each literally after a backslash.
const mdSpecial = "\\`*_<>[]&"

func escapeMarkdownLine(s string) string {
	if !strings.ContainsAny(s, mdSpecial) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(mdSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
