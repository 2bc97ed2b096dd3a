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

// suggest returns the candidates close to typed: typed is a prefix of
// them, or they are within two edits (one for names of up to four
// letters, where two edits reach unrelated words). Single letters get no
// suggestion.
func suggest(typed string, candidates []string) []string {
	if len(typed) < 2 {
		return nil
	}
	maxDist := 2
	if len(typed) <= 4 {
		maxDist = 1
	}
	var out []string
	for _, c := range candidates {
		if c != typed && (strings.HasPrefix(c, typed) || distance(strings.ToLower(typed), strings.ToLower(c)) <= maxDist) {
			out = append(out, c)
		}
	}
	return out
}

// distance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of neighbours ("form" is
// one edit from "from").
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
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
