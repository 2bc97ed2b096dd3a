package render

import (
	"regexp"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// valueSlot is where Helm's value coalescing quotes the value it drops
// ("destination for a.b is a table. Ignoring non-table value (VALUE)",
// "cannot overwrite table with non table for a.b (VALUE)"), in Helm 3
// and Helm 4 alike: a log line, not an error, so scrub does not know it.
var valueSlot = regexp.MustCompile(`((?:Ignoring non-table value|cannot overwrite table with non table for \S+) )\(.*\)`)

// helmNoticeCleaner cleans a Helm library's log line as render errors
// are cleaned (scrub, with every input of the render), its coalescing
// value slot masked first.
func helmNoticeCleaner(req Request) func(string) string {
	var s *scrub.Set // built on the first notice: most renders have none
	return func(text string) string {
		if s == nil {
			s = inputSecrets(req, nil)
		}
		return s.Foreign(valueSlot.ReplaceAllString(text, "${1}("+scrub.Mask+")"))
	}
}

// jsonnetNoticeCleaner masks a jsonnet source's external variables and
// top-level arguments in its std.trace lines, which are the source's own
// words (their quotes stay).
func jsonnetNoticeCleaner(o *argo.JsonnetOptions) func(string) string {
	s := &scrub.Set{}
	for _, v := range append(append([]argo.JsonnetVar{}, o.ExtVars...), o.TLAs...) {
		s.Add(v.Value)
	}
	return s.Text
}
