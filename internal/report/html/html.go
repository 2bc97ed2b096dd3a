// Package html writes the report as one self-contained HTML page, to
// publish as a CI artifact: a summary by environment and status, the
// changes several apps share shown once (grouped as in the note), every
// app collapsible with each resource's diff, numbered and coloured, and a
// filter.
//
// The page is rendered here with html/template, so every value of the
// report is escaped for where it lands, and it reads only the report
// model, whose diffs hold redacted text: a Secret value cannot reach it.
// Its CSS and its small script are inline and allowed by hash in the
// page's Content-Security-Policy, which allows nothing else: the page
// loads nothing from the network, and markup that escaped escaping could
// run no script.
package html

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/report"
)

var (
	//go:embed assets/page.html.tmpl
	pageTemplate string
	//go:embed assets/report.css
	style string
	//go:embed assets/report.js
	script string
)

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"status": statusBadge,
	"label":  columnLabel,
	"class":  classPart,
	"inc":    func(n int) int { return n + 1 },
	// anchors hold only characters a fragment may hold as they are (see
	// report.AppAnchor): typed as a URL, html/template keeps their "/"
	"href": func(anchor string) template.URL { return template.URL("#" + anchor) },
}).Parse(pageTemplate))

// csp allows the page's own style and script by hash and nothing else.
var csp = "default-src 'none'; style-src " + hash(style) + "; script-src " + hash(script) +
	"; img-src 'none'; base-uri 'none'; form-action 'none'"

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// document is the template's data: the page plus its assets.
type document struct {
	page
	CSP    string
	Style  template.CSS
	Script template.JS
}

// Write writes the report as one HTML page.
func Write(w io.Writer, r report.Report) error {
	var b bytes.Buffer
	doc := document{page: build(r), CSP: csp, Style: template.CSS(style), Script: template.JS(script)}
	if err := tmpl.Execute(&b, doc); err != nil {
		return fmt.Errorf("render html report: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}

// statusBadge shows a status as a coloured label; the class is derived
// from the status so a new status gets one too.
func statusBadge(s string) template.HTML {
	return template.HTML(`<span class="st s-` + classPart(s) + `">` + template.HTMLEscapeString(s) + `</span>`)
}

// columnLabel is a summary column's heading: the note says "Failed" for
// apps in error.
func columnLabel(s string) string {
	if s == report.StatusError {
		return "Failed"
	}
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// classPart keeps what a CSS class name may hold unescaped.
func classPart(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
