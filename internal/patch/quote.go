package patch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// render returns the text that replaces node n's value so that it reads back
// as s. The node keeps its quote style; plain values stay plain only when
// the plain text still reads as the string s, and single-quoted values that
// cannot hold s on one line fall back to double quotes. tag is the tag
// property written before the value, if any.
func render(s string, n *yaml.Node, flow bool, tag string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("new value is not valid utf-8: %w", ErrUnsupported)
	}
	switch {
	case n.Kind == yaml.AliasNode:
	case n.Style&yaml.DoubleQuotedStyle != 0:
		return doubleQuote(s), nil
	case n.Style&yaml.SingleQuotedStyle != 0:
		if singleOK(s) {
			return "'" + strings.ReplaceAll(s, "'", "''") + "'", nil
		}
		return doubleQuote(s), nil
	}
	if plainOK(s, flow, tag, n.Tag) {
		return s, nil
	}
	return doubleQuote(s), nil
}

// printable is YAML's c-printable set minus the characters the parser
// treats as line breaks or a byte order mark.
func printable(r rune) bool {
	switch {
	case r == '\t' || r >= 0x20 && r <= 0x7E:
		return true
	case r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xFEFF:
		return false
	}
	return r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000
}

func singleOK(s string) bool {
	for _, r := range s {
		if !printable(r) {
			return false
		}
	}
	return true
}

func doubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case printable(r):
			b.WriteRune(r)
		case r <= 0xFF:
			fmt.Fprintf(&b, `\x%02X`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			fmt.Fprintf(&b, `\U%08X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// plainOK reports whether s can be written plain and read back as the
// string s, by the parser used here (YAML 1.2) and by YAML 1.1 readers
// (Helm and Argo CD go through sigs.k8s.io/yaml, where `yes`, `on` and
// `0755` are not strings). origTag is the node's resolved tag.
func plainOK(s string, flow bool, tag, origTag string) bool {
	if s == "" || s != strings.TrimSpace(s) || strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		return false
	}
	for _, r := range s {
		if r == '\t' || !printable(r) {
			return false
		}
	}
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || strings.Contains(s, " #") {
		return false
	}
	if flow && strings.ContainsAny(s, ",[]{}") {
		return false
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(s[0])) {
		indicator := strings.ContainsRune("-?:", rune(s[0]))
		if !indicator || len(s) == 1 || s[1] == ' ' || isFlowIndicator(s[1]) {
			return false
		}
	}
	if tag == "" && yaml11NonString(s) {
		return false
	}
	return readsAs(s, tag, origTag)
}

// readsAs parses the candidate text and checks it is the string s.
func readsAs(s, tag, origTag string) bool {
	src := s
	if tag != "" {
		src = tag + " " + s
	}
	t, err := parse([]byte(src))
	if err != nil || len(t.docs) != 1 {
		return false
	}
	n := t.docs[0]
	if n.Kind != yaml.ScalarNode || n.Value != s {
		return false
	}
	return n.Tag == "!!str" || tag != "" && n.Tag == origTag
}

var (
	yaml11Words = regexp.MustCompile(`^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|~|null|Null|NULL|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)|<<|=)$`)
	yaml11Float = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	yaml11Time  = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}`)
	yaml11Sexa  = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$`)
)

// yaml11NonString reports whether a YAML 1.1 reader (go-yaml v2, as used by
// sigs.k8s.io/yaml) would resolve plain s to something other than a string.
// It errs on the side of quoting.
func yaml11NonString(s string) bool {
	if yaml11Words.MatchString(s) || yaml11Time.MatchString(s) || yaml11Sexa.MatchString(s) {
		return true
	}
	if !strings.ContainsRune("0123456789+-.", rune(s[0])) {
		return false
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return true
	}
	if yaml11Float.MatchString(plain) {
		return true
	}
	for _, p := range []string{"0b", "-0b", "+0b"} {
		if rest, ok := strings.CutPrefix(plain, p); ok {
			if _, err := strconv.ParseUint(rest, 2, 64); err == nil {
				return true
			}
		}
	}
	return false
}

// renderTyped writes s plain so that it reads back with tag (a number or a
// bool); text that would not is refused rather than silently quoted into a
// string.
func renderTyped(s, tag string, flow bool, explicitTag string) (string, error) {
	if explicitTag != "" || (flow && strings.ContainsAny(s, ",[]{}")) {
		return "", fmt.Errorf("cannot write %q as %s here: %w", s, tag, ErrUnsupported)
	}
	t, err := parse([]byte(s))
	if err != nil || len(t.docs) != 1 || t.docs[0].Kind != yaml.ScalarNode || t.docs[0].Value != s || t.docs[0].Tag != tag {
		return "", fmt.Errorf("%q does not read back as %s: %w", s, tag, ErrUnsupported)
	}
	return s, nil
}
