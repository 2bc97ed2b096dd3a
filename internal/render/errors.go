package render

import (
	"strconv"
	"strings"
)

// Error is a failed Helm render with the context needed to find its cause.
// Error() is always one line: Helm's multi-line messages (schema
// violations, for instance) are joined with "; " so a caller can print one
// error per app.
type Error struct {
	Release string // release name
	Chart   string // chart name-version, once the chart is loaded
	Source  string // value file name or "helm.values", when the error is about one
	Err     error  // the Helm error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("render release ")
	b.WriteString(quote(e.Release))
	if e.Chart != "" {
		b.WriteString(" chart ")
		b.WriteString(e.Chart)
	}
	if e.Source != "" {
		b.WriteString(" values ")
		b.WriteString(quote(e.Source))
	}
	b.WriteString(": ")
	b.WriteString(oneLine(e.Err.Error()))
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// wrap returns a copy of e carrying err, so e can be reused as a template.
func (e *Error) wrap(err error) *Error {
	c := *e
	c.Err = err
	return &c
}

func (e *Error) wrapSource(source string, err error) *Error {
	c := e.wrap(err)
	c.Source = source
	return c
}

func quote(s string) string { return strconv.Quote(s) }

func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "; ")
}
