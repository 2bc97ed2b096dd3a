package cli

import (
	"errors"
	"fmt"
	"github.com/gitops-promote/gitops-promote/internal/suggest"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Enum is a string flag that only takes one of Allowed; a bad value is a
// usage error at parse time, and completion offers the values.
type Enum struct {
	Value   *string
	Allowed []string
}

func (e *Enum) String() string {
	if e.Value == nil {
		return ""
	}
	return *e.Value
}

func (e *Enum) Set(s string) error {
	if !slices.Contains(e.Allowed, s) {
		return fmt.Errorf("must be %s", suggest.Or(e.Allowed))
	}
	*e.Value = s
	return nil
}

// Type is what help shows as the flag's argument: "text|json".
func (e *Enum) Type() string { return strings.Join(e.Allowed, "|") }

// EnumVarP defines an enum flag with a default and completion of its values.
func EnumVarP(cmd *cobra.Command, p *string, name, short, def string, allowed []string, usage string) {
	*p = def
	cmd.Flags().VarP(&Enum{Value: p, Allowed: allowed}, name, short, usage)
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(allowed, cobra.ShellCompDirectiveNoFileComp))
}

// OutputFlag defines -o/--output FORMAT, the one meaning of --output in
// both tools (as kubectl and helm).
func OutputFlag(cmd *cobra.Command, p *string, def string, formats ...string) {
	usage := "output format: " + suggest.Or(formats)
	if def == "" {
		usage += " (default: " + formats[0] + " on a terminal, else " + formats[1] + ")"
	}
	EnumVarP(cmd, p, "output", "o", def, formats, usage)
}

// Globals are the flags every verb of both tools takes.
type Globals struct {
	Color string // auto, always or never
	Quiet bool   // results and errors only: no progress or information on stderr
}

// GlobalFlags defines --color and -q/--quiet on root, for every verb.
func GlobalFlags(root *cobra.Command, g *Globals) {
	g.Color = ColorAuto
	fs := root.PersistentFlags()
	fs.Var(&Enum{Value: &g.Color, Allowed: []string{ColorAuto, ColorAlways, ColorNever}}, "color",
		"colour the output: auto (on a terminal, unless NO_COLOR is set), always or never")
	_ = root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions(
		[]string{ColorAuto, ColorAlways, ColorNever}, cobra.ShellCompDirectiveNoFileComp))
	fs.BoolVarP(&g.Quiet, "quiet", "q", false, "print results and errors only: no progress or information on stderr (warnings still show)")
}

// Deprecate hides a flag that is kept for old scripts and makes Warnings
// name its replacement. cobra's MarkDeprecated would print its notice
// through the command's output writer, which is stdout here, so the
// notice is ours and goes to stderr with the other warnings.
func Deprecate(cmd *cobra.Command, name, instead string) {
	f := cmd.Flags().Lookup(name)
	f.Hidden = true
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[deprecatedKey] = []string{instead}
}

const deprecatedKey = "gitops-promote/deprecated"

// Deprecation is a flag value that knows when the value it was given is
// an old spelling (manifestdiff's --output FILE).
type Deprecation interface {
	Deprecation() string // "" when the value given is current
}

// Warnings returns a notice for each deprecated flag or value given on
// cmd's line.
func Warnings(cmd *cobra.Command) []string {
	var out []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if v := f.Annotations[deprecatedKey]; len(v) > 0 {
			out = append(out, fmt.Sprintf("--%s is deprecated: %s", f.Name, v[0]))
		}
		if d, ok := f.Value.(Deprecation); ok && d.Deprecation() != "" {
			out = append(out, d.Deprecation())
		}
	})
	return out
}

// flagError turns pflag's errors into one-line usage errors with a
// suggestion: a close flag name of this verb, or the verbs that take it.
func flagError(cmd *cobra.Command, err error) error {
	if args := cmd.Flags().Args(); len(args) > 0 && cmd.HasAvailableSubCommands() {
		// "promote plna --from qa": the verb is what is wrong, not --from
		return UnknownVerb(cmd, args[0])
	}
	var (
		notExist *pflag.NotExistError
		noValue  *pflag.ValueRequiredError
		invalid  *pflag.InvalidValueError
	)
	switch {
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		if notExist.GetSpecifiedShortnames() != "" {
			err = fmt.Errorf("unknown flag -%s in -%s", name, notExist.GetSpecifiedShortnames())
			break
		}
		msg := "unknown flag --" + name
		if s := suggest.Close(name, flagNames(cmd)); len(s) > 0 {
			msg += suggest.Format("--", s)
		} else if others := verbsWithFlag(cmd, name); len(others) > 0 {
			msg += fmt.Sprintf(" for %s (%s %s it)", cmd.Name(), andList(others), takes(len(others)))
		}
		err = errors.New(msg)
	case errors.As(err, &noValue):
		err = fmt.Errorf("%s needs a value", flagName(noValue.GetFlag()))
	case errors.As(err, &invalid):
		err = fmt.Errorf("invalid %s %q: %v", flagName(invalid.GetFlag()), invalid.GetValue(), errors.Unwrap(invalid))
	}
	return &UsageError{Path: cmd.CommandPath(), Err: err}
}

func takes(n int) string {
	if n == 1 {
		return "takes"
	}
	return "take"
}

func flagName(f *pflag.Flag) string {
	if f == nil {
		return "flag"
	}
	if f.Shorthand != "" {
		return "-" + f.Shorthand + "/--" + f.Name
	}
	return "--" + f.Name
}

func flagNames(cmd *cobra.Command) []string {
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return names
}

// verbsWithFlag names the sibling verbs that define flag name.
func verbsWithFlag(cmd *cobra.Command, name string) []string {
	if !cmd.HasParent() {
		return nil
	}
	var out []string
	for _, c := range cmd.Parent().Commands() {
		if c != cmd && !c.Hidden && c.Flags().Lookup(name) != nil {
			out = append(out, c.Name())
		}
	}
	return out
}
