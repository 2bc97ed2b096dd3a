package render

import (
	"errors"
	"path"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// Error is a failed Helm render with the context needed to find its cause.
// Error() is always one line: Helm's multi-line messages (schema
// violations, for instance) are joined with "; " so a caller can print one
// error per app.
//
// Error() never shows a value: Helm's text goes through scrub with every
// input of the render (value files, helm.values, parameters, file
// parameters), so a message that quotes or interpolates a value keeps its
// position (template, line, key path) and loses the value. Print Error(),
// never Err itself.
type Error struct {
	Release string // release name
	Chart   string // chart name-version, once the chart is loaded
	Source  string // value file name or "helm.values", when the error is about one
	Err     error  // the Helm error, unscrubbed

	secrets *scrub.Set
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
	b.WriteString(e.secrets.Foreign(oneLine(e.Err.Error())))
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

// withInputs gives a failed render's *Error the render's inputs to scrub
// its text with, for a renderer that builds its *Error without the chart
// Helm 3 loads (Helm 4). Call it deferred, on the named error result.
func withInputs(err error, req Request) {
	var e *Error
	if errors.As(err, &e) && e.secrets == nil {
		e.secrets = inputSecrets(req, chartOf(req))
	}
}

// inputSecrets collects every value req feeds the render, the chart's own
// defaults among them when ch is known (chartvalues.go), and the names
// that stay readable in its errors. ch is nil when the chart did not load.
// It never loads the chart itself: a library logs while a chart loads, in
// the chart cache's critical section, and its notice cleaner calls this.
// Built only on failure: a successful render pays nothing.
func inputSecrets(req Request, ch *chart.Chart) *scrub.Set {
	s := &scrub.Set{}
	addChartDefaults(s, ch)
	s.Keep(releaseName(req), valuesSource, req.KubeVersion, req.Namespace)
	s.Keep(req.APIVersions...)
	for _, f := range req.ValueFiles {
		s.AddYAML(f.Data)
		s.Keep(f.Name)
	}
	s.AddYAML(req.Values)
	for _, p := range req.Parameters {
		s.Add(p.Value)
		// a {a,b} list and escaped commas: each element is a value too
		s.Add(strings.FieldsFunc(strings.Trim(p.Value, "{}"), func(r rune) bool { return r == ',' })...)
		s.Keep(p.Name)
	}
	for _, f := range req.FileParameters {
		s.Add(string(f.Data))
		s.Keep(f.Name)
	}
	if ch != nil {
		keepTemplates(s, ch, ch.Name())
	}
	return s
}

// keepTemplates keeps the template names Helm prints ("demo/templates/x.yaml",
// "demo/charts/sub/templates/y.yaml") and the charts' names readable.
func keepTemplates(s *scrub.Set, ch *chart.Chart, prefix string) {
	s.Keep(ch.Name())
	for _, t := range ch.Templates {
		s.Keep(path.Join(prefix, t.Name))
	}
	for _, dep := range ch.Dependencies() {
		keepTemplates(s, dep, path.Join(prefix, "charts", dep.Name()))
	}
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
