package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// ErrUsage marks bad command-line input: the message is one line and
// points at the command's --help instead of printing the whole usage.
var ErrUsage = errors.New("usage")

// UsageError is bad input to one command.
type UsageError struct {
	Path string // the command path, e.g. "promote plan"
	Err  error
}

func (e *UsageError) Error() string   { return e.Err.Error() }
func (e *UsageError) Unwrap() []error { return []error{e.Err, ErrUsage} }

// Usagef returns a UsageError of cmd.
func Usagef(cmd *cobra.Command, format string, a ...any) error {
	return &UsageError{Path: cmd.CommandPath(), Err: fmt.Errorf(format, a...)}
}

// Line folds err into one line; a usage error ends with where to read
// more: "unknown flag --fromm (did you mean --from?); see 'promote plan --help'".
func Line(err error) string {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	var ue *UsageError
	if errors.As(err, &ue) {
		msg += "; see '" + ue.Path + " --help'"
	}
	return msg
}

// suggest returns the candidates close to typed: a prefix of it, or within
// two edits (cobra's rule for commands, used for flags too).
func suggest(typed string, candidates []string) []string {
	var out []string
	for _, c := range candidates {
		if c == typed {
			continue
		}
		if levenshtein(strings.ToLower(typed), strings.ToLower(c)) <= 2 || len(typed) > 1 && strings.HasPrefix(c, typed) {
			out = append(out, c)
		}
	}
	return out
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// didYouMean renders suggestions as " (did you mean --a or --b?)".
func didYouMean(prefix string, s []string) string {
	if len(s) == 0 {
		return ""
	}
	for i := range s {
		s[i] = prefix + s[i]
	}
	return " (did you mean " + orList(s) + "?)"
}

// orList joins "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// Plural counts: "1 file", "7 files".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
