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

// Plural counts: "1 file", "7 files".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
