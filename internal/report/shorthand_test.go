package report

import (
	"io"
)

// Markdown is the note without options, as most tests want it.
func Markdown(w io.Writer, r Report) error { return MarkdownWith(w, r, MarkdownOptions{}) }
