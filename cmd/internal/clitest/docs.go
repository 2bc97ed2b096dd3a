package clitest

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// DocCommand is one command line of a tool shown in the docs.
type DocCommand struct {
	File string
	Line int
	Text string     // as written, continuation lines joined
	Args [][]string // the arguments after the tool name, one list per alternative
}

// DocCommands returns every command line of tool in README.md and
// docs/*.md under root: lines of fenced code blocks that start with it
// (after a "$ " prompt or a YAML "- " list marker, with indented
// continuation lines of a synopsis), and inline code spans that do.
func DocCommands(root, tool string) ([]DocCommand, error) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	var out []DocCommand
	for _, f := range append([]string{filepath.Join(root, "README.md")}, files...) {
		cmds, err := fileCommands(f, tool)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, f)
		for i := range cmds {
			cmds[i].File = rel
		}
		out = append(out, cmds...)
	}
	return out, nil
}

func fileCommands(path, tool string) ([]DocCommand, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		out   []DocCommand
		fence string // the open fence's marker, "" outside code blocks
		open  *DocCommand
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if m := fenceMarker(trimmed); m != "" {
			switch {
			case fence == "":
				fence, open = m, nil
				continue
			case m[0] == fence[0] && len(m) >= len(fence) && m == trimmed: // closes the block
				fence, open = "", nil
				continue
			}
		}
		if fence == "" {
			for _, span := range codeSpans(line) {
				if isCommand(span, tool) {
					out = append(out, DocCommand{Line: n, Text: span})
				}
			}
			continue
		}
		// a synopsis continues on indented lines of flags
		if open != nil && line != trimmed && (strings.HasPrefix(trimmed, "[") || strings.HasPrefix(trimmed, "--")) {
			open.Text += " " + trimmed
			continue
		}
		open = nil
		cmd := strings.TrimPrefix(strings.TrimPrefix(trimmed, "$ "), "- ")
		if isCommand(cmd, tool) {
			out = append(out, DocCommand{Line: n, Text: cmd})
			open = &out[len(out)-1]
		}
	}
	for i := range out {
		out[i].Args = alternatives(tokens(out[i].Text)[1:])
	}
	return out, sc.Err()
}

func fenceMarker(s string) string {
	for _, m := range []string{"```", "~~~"} {
		if strings.HasPrefix(s, m) {
			return s[:len(s)-len(strings.TrimLeft(s, m[:1]))]
		}
	}
	return ""
}

func isCommand(s, tool string) bool {
	return s == tool || strings.HasPrefix(s, tool+" ")
}

// codeSpans returns the inline code spans of a markdown line: text
// between backtick runs of equal length.
func codeSpans(line string) []string {
	var out []string
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == '`' {
			j++
		}
		run := line[i:j]
		end := strings.Index(line[j:], run)
		for end >= 0 && j+end+len(run) < len(line) && line[j+end+len(run)] == '`' {
			next := strings.Index(line[j+end+len(run)+1:], run)
			if next < 0 {
				end = -1
				break
			}
			end += len(run) + 1 + next
		}
		if end < 0 {
			i = j
			continue
		}
		out = append(out, strings.TrimSpace(line[j:j+end]))
		i = j + end + len(run)
	}
	return out
}

// tokens splits a command line as a shell would (quotes, comments), and
// drops the synopsis notation: brackets, "|" between alternatives inside
// brackets, and "..." for repetition. A "|", ">", "&&" or ";" outside
// brackets ends the command.
func tokens(s string) []string {
	var (
		out   []string
		cur   strings.Builder
		has   bool
		quote rune
		depth int
	)
	flush := func() {
		if t := cur.String(); has && t != "..." {
			out = append(out, strings.TrimSuffix(t, "..."))
		}
		cur.Reset()
		has = false
	}
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, has = r, true
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == ' ' || r == '\t':
			flush()
		case r == '#' && !has:
			flush()
			return out
		case depth == 0 && !has && (r == '|' || r == '>' || r == ';' || r == '&'):
			return out
		case r == '|' && !has:
			// an alternative separator between bracketed flags
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	flush()
	return out
}

// alternatives expands "a|b" tokens (a flag value such as text|json)
// into one argument list per alternative.
func alternatives(args []string) [][]string {
	lists := [][]string{{}}
	for _, a := range args {
		alts := []string{a}
		if strings.Contains(a, "|") && !strings.HasPrefix(a, "-") {
			alts = strings.Split(a, "|")
		}
		var next [][]string
		for _, l := range lists {
			for _, alt := range alts {
				next = append(next, append(append([]string{}, l...), alt))
			}
		}
		lists = next
	}
	return lists
}
